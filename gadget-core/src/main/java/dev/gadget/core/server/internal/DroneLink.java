package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.Requests.handle;
import static dev.gadget.core.server.internal.Requests.handleNonBlocking;
import static dev.gadget.core.server.internal.Requests.reply;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.Ids;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.ChangePayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.protocol.WorkspacePayloads;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.stream.StreamChunk;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A drone's link to the server: registration when it connects (one registration per
 * workspace), its events (stream, heartbeats, the end of a turn, status), the grace period when
 * it disconnects mid-turn, and crash recovery when it restarts with a cached work order.
 */
public final class DroneLink {
  private static final Logger log = LoggerFactory.getLogger(DroneLink.class);

  private final ServerSettings settings;
  private final ChatStore store;
  private final WatcherRooms rooms;
  private final DroneRouter router;
  private final LiveTurns turns;
  private final ApprovalDesk approvals;
  private final TurnResumption resumption;
  private final ClusterNode node;
  private volatile boolean closed;

  public DroneLink(ServerSettings settings, WatcherRooms rooms, DroneRouter router,
      LiveTurns turns, ApprovalDesk approvals, TurnResumption resumption, ClusterNode node) {
    this.node = node;
    this.approvals = approvals;
    this.resumption = resumption;
    this.settings = settings;
    this.store = settings.store();
    this.rooms = rooms;
    this.router = router;
    this.turns = turns;
  }

  /** A drone connected: registers it, resumes or stops the turn it says it runs, and listens. */
  public void connected(Connection c, Authenticator.DronePrincipal p) {
    Instant now = settings.clock().instant();
    DroneRegistration reg;
    ConnectedDrone drone;
    String staleTurn = null;
    LiveTurn resumed = null;
    LiveTurn takenOver = null;
    synchronized (router.lock()) {
      // Looked up and saved under the routing lock: two connections of one new workspace
      // share one registration.
      reg = store.findDroneByWorkspace(p.userId(), p.workspaceId())
          .map(r -> new DroneRegistration(r.id(), r.userId(), r.workspaceId(), p.hostname(),
              p.workspaceDir(), DroneStatus.AVAILABLE, r.registeredAt(), now))
          .orElseGet(() -> new DroneRegistration(Ids.next(), p.userId(), p.workspaceId(),
              p.hostname(), p.workspaceDir(), DroneStatus.AVAILABLE, now, now));
      drone = router.register(reg.id(), p.userId(), p.workspaceId());
      Connection old = drone.connection;
      drone.connection = c;
      drone.mode = p.mode();
      if (old != null && old != c) {
        old.disconnect();
      }
      String active = drone.activeTurnId;
      LiveTurn running = turns.get(active);
      if (node != null && running == null) {
        takenOver = takeOver(drone, p.activeTurnId());
      }
      LiveTurn adopted = running == null ? turns.get(p.activeTurnId()) : null;
      if (adopted != null && adopted.droneId.equals(drone.id)) {
        // a turn this server took back after a restart: the drone still runs it
        drone.activeTurnId = adopted.turn.id();
        active = drone.activeTurnId;
        running = adopted;
      }
      if (running != null && active.equals(p.activeTurnId())) {
        synchronized (running.lock) {
          if (!running.awaitingReplay) {
            running.cancelGrace(); // else the replay's start ends the wait
          }
          running.lastEventAtMillis = now.toEpochMilli();
        }
        resumed = running;
        drone.status = DroneStatus.BUSY;
        log.info("drone {} came back and still runs turn {}", drone.id, running.turn.id());
      } else {
        // A drone that asks about a turn from before its crash takes no work until answered.
        drone.status = p.recoveringTurnId() != null ? DroneStatus.BUSY : DroneStatus.AVAILABLE;
        if (p.activeTurnId() != null && running == null) {
          staleTurn = p.activeTurnId();
          // busy until it says it is available: ending that turn takes it a while
          drone.status = DroneStatus.BUSY;
        }
      }
      reg = reg.withStatus(drone.status, now);
      store.saveDrone(reg);
    }
    log.info("drone {} connected (workspace {}, host {})", drone.id, p.workspaceId(),
        p.hostname());
    if (node != null) {
      node.droneConnected(drone);
      // a turn taken over is claimed; one still run here, too when the drone is not leased (the
      // cluster away: another node may have taken the turn over meanwhile, without a lease)
      LiveTurn claimed = takenOver != null ? takenOver
          : resumed != null && node.lease(drone.id) == null ? resumed : null;
      if (claimed != null && turns.fence.endedBeforeClaim(claimed)) {
        staleTurn = claimed.turn.id(); // its end came before this node's claim: stop it
        resumed = null;
      }
    }
    if (staleTurn != null) {
      // The drone runs a turn the server no longer follows (it restarted): stop it.
      c.emit(Protocol.CANCEL_WORK_ORDER, Protocol.args(new Payloads.CancelWorkOrder(staleTurn)));
    }
    listen(c, drone);
    if (resumed != null) {
      // what was in flight when the link dropped (or the server died) is sent again
      c.emit(Protocol.RESUME_STREAM, Protocol.args(resumption.request(resumed)));
    }
  }

  /**
   * The drone's events; add a new drone → server event here. The stream's text events and
   * heartbeats never block (their store writes are queued, {@link TurnWrites}), so the transport
   * may run them on the thread that read them.
   */
  private void listen(Connection c, ConnectedDrone me) {
    // a token's event goes on to the pages as it came, when it holds nothing else
    handleNonBlocking(c, Protocol.THINKING, Payloads.TextEvent.class,
        (Payloads.TextEvent e, List<JsonNode> received, Ack ack) -> turns.stream(me,
            e.turnId(), e.seq(), new StreamChunk.Thinking(e.data(), e.reasoning()),
            Protocol.THINKING, e.withoutReasoning(), Protocol.receivedArgs(e, received)));
    handleNonBlocking(c, Protocol.RESPONSE, Payloads.TextEvent.class,
        (Payloads.TextEvent e, List<JsonNode> received, Ack ack) -> turns.stream(me,
            e.turnId(), e.seq(), new StreamChunk.Response(e.data()), Protocol.RESPONSE, e,
            Protocol.receivedArgs(e, received)));
    handle(c, Protocol.TOOL_CALL, Payloads.ToolCallEvent.class, (e, ack) -> turns.stream(me.id,
        e.turnId(), e.seq(), new StreamChunk.ToolCallChunk(e.call()), Protocol.TOOL_CALL, e));
    handle(c, Protocol.COMPACTION, Payloads.CompactionEvent.class, (e, ack) -> {
      // the drone leaves out the kept turn when it is this one: pages and the store get it
      Payloads.CompactionEvent filled = new Payloads.CompactionEvent(e.turnId(), e.seq(),
          e.compaction().withKeptTurnId(e.turnId()));
      turns.stream(me.id, e.turnId(), e.seq(), new StreamChunk.CompactionChunk(
          filled.compaction()), Protocol.COMPACTION, filled);
    });
    handle(c, Protocol.TOOL_STARTED, Payloads.ToolStarted.class, (e, ack) -> turns.stream(me.id,
        e.turnId(), e.seq(), null, Protocol.TOOL_STARTED, e));
    handleNonBlocking(c, Protocol.TOOL_OUTPUT, Payloads.ToolOutput.class, (e, ack) ->
        turns.stream(me.id, e.turnId(), e.seq(), null, Protocol.TOOL_OUTPUT, e));
    handle(c, Protocol.DRONE_TOOLS, Payloads.DroneTools.class, (e, ack) -> {
      me.toolNames = e.tools().stream().map(Payloads.ToolInfo::name).distinct().toList();
      me.orphansCleaned = e.orphansCleaned() == null ? 0 : Math.max(0, e.orphansCleaned());
      log.debug("drone {} offers {} tools", me.id, me.toolNames.size());
    });
    handle(c, Protocol.TURN_CHANGES, ChangePayloads.TurnChanges.class, (e, ack) -> {
      if (e.diff() != null) {
        turns.stream(me.id, e.turnId(), e.seq(), new StreamChunk.Changes(e.diff()),
            Protocol.TURN_CHANGES, e);
      }
    });
    handleNonBlocking(c, Protocol.HEARTBEAT, Payloads.Heartbeat.class, (e, ack) ->
        turns.heard(me.id, String.valueOf(e.turnId())));
    handle(c, Protocol.WORK_ORDER_COMPLETE, Payloads.WorkOrderComplete.class, (e, ack) -> {
      LiveTurn t = turns.get(e.turnId());
      if (t != null && t.droneId.equals(me.id)) {
        Runnable end = () -> {
          synchronized (t.lock) {
            t.lastSeq = Math.max(t.lastSeq, e.seq() - 1);
          }
          turns.end(t, e.status().isTerminal() ? e.status() : TurnStatus.ERROR, e.stats(),
              e.error(), e.text());
          reply(ack, Payloads.OkReply.success());
        };
        if (!resumption.hold(t, e.seq(), end)) {
          end.run();
        }
        return;
      }
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, Protocol.STREAM_REPLAY, ResumePayloads.StreamReplay.class, (e, ack) ->
        resumption.replayed(me.id, e));
    handle(c, Protocol.REQUEST_CRASH_RECOVERY, Payloads.CrashRecoveryRequest.class,
        (e, ack) -> recover(c, me, e, ack));
    handle(c, Protocol.APPROVAL_REQUEST, ApprovalPayloads.ApprovalRequest.class, (e, ack) ->
        approvals.request(me.id, e, ack));
    handle(c, Protocol.DRONE_STATUS, Payloads.DroneStatusEvent.class, (e, ack) -> {
      if (e.status() == DroneStatus.AVAILABLE || e.status() == DroneStatus.BUSY) {
        if (e.status() == DroneStatus.AVAILABLE) {
          synchronized (router.lock()) {
            if (me.connection == c && me.activeTurnId == null && me.status == DroneStatus.BUSY) {
              me.status = DroneStatus.AVAILABLE; // it has ended a turn the server did not follow
            }
          }
        }
        saveStatus(me, e.status());
        rooms.toUserPages(me.userId, new Payloads.DroneStatusEvent(me.id, e.status(), e.turnId()));
      }
    });
    handle(c, Protocol.TURN_STATS, WorkspacePayloads.TurnStatsEvent.class, (e, ack) -> {
      LiveTurn t = turns.get(e.turnId());
      if (t != null && t.droneId.equals(me.id)) {
        synchronized (t.lock) {
          if (t.ended) {
            return;
          }
          t.liveStats = e.stats();
          t.lastEventAtMillis = settings.clock().millis();
        }
        rooms.toWatchers(t.turn.sessionId(), Protocol.TURN_STATS, e);
      }
    });
    handle(c, Protocol.DRONE_REGISTRATION, JsonNode.class, (e, ack) -> reply(ack,
        new WorkspacePayloads.RegistrationReply(me.id, me.status, store.findDrone(me.id)
            .map(DroneRegistration::registeredAt).orElse(null))));
    handle(c, Protocol.WORKSPACE_MODE, WorkspacePayloads.WorkspaceModeEvent.class, (e, ack) -> {
      me.mode = e.mode();
      rooms.toUserPages(me.userId, Protocol.WORKSPACE_MODE,
          new WorkspacePayloads.WorkspaceModeEvent(me.id, e.mode()));
    });
  }

  /** The drone's link dropped: it goes offline, and its turn waits the grace period for it. */
  public void disconnected(Connection c, String reason) {
    ConnectedDrone drone = router.byConnection(c);
    if (drone == null || closed) {
      return;
    }
    LiveTurn running;
    synchronized (router.lock()) {
      if (drone.connection != c) {
        return;
      }
      drone.connection = null;
      drone.status = DroneStatus.OFFLINE;
      running = turns.get(drone.activeTurnId);
    }
    boolean elsewhere = node != null && node.heldElsewhere(drone.id);
    synchronized (router.lock()) {
      if (drone.connection != null) {
        // it connected again while this close was handled: the new socket's turn and lease stay
        log.info("drone {} disconnected ({}) and is back already", drone.id, reason);
        return;
      }
      if (!elsewhere) {
        saveStatus(drone, DroneStatus.OFFLINE); // as a connection saves its own: under the lock
      }
      if (running != null) {
        turns.awaitReturn(running, reason);
      }
    }
    if (elsewhere) {
      // it went to another node, which has stored and told its status: not offline
      log.info("drone {} disconnected here, and is connected to another node: {}", drone.id,
          reason);
    } else {
      log.info("drone {} disconnected: {}", drone.id, reason);
      rooms.toUserPages(drone.userId, // under its lease still: the news go to every node
          new Payloads.DroneStatusEvent(drone.id, DroneStatus.OFFLINE, null));
    }
    if (node != null) {
      node.droneDisconnected(drone);
    }
  }

  /**
   * In a cluster: the drone runs {@code turnId}, which no node of this one follows: its node
   * died (or lost it). When the store has it running on this drone, this node takes it over as
   * a restarted server would. Called under the routing lock.
   */
  private LiveTurn takeOver(ConnectedDrone drone, String turnId) {
    if (turnId == null || turns.get(turnId) != null) {
      return null;
    }
    return store.findTurn(turnId)
        .filter(t -> t.status() == TurnStatus.PROCESSING && drone.id.equals(t.droneId()))
        .map(t -> {
          LiveTurn live = resumption.adopt(t, "on a node that left the cluster");
          node.adopted(t);
          return live;
        }).orElse(null);
  }

  /** The server is closing: links that drop now are not the drones' fault. */
  public void close() {
    closed = true;
  }

  private void recover(Connection c, ConnectedDrone drone, Payloads.CrashRecoveryRequest req,
      Ack ack) {
    LiveTurn t = turns.get(req.turnId());
    Payloads.CrashRecoveryResponse answer = new Payloads.CrashRecoveryResponse(req.turnId(),
        Payloads.CrashRecoveryResponse.DISCARD, null);
    boolean noOrder = false;
    if (t != null && t.droneId.equals(drone.id)) {
      synchronized (t.lock) {
        noOrder = !t.ended && t.workOrder == null; // taken back, its order not made again
        if (!t.ended && !noOrder) {
          t.cancelGrace();
          // The same link asking again (it asks on connecting and once ready) is answered the
          // same, and counts once.
          boolean again = t.retriedBy == c;
          t.retriedBy = c;
          // What was streamed before the crash stays; the retry's stream goes on after it.
          long firstSeq = t.lastSeq + 1;
          if (req.redoes() && !again) {
            // The round streams again: what the user saw of it stays, marked superseded, and
            // the redone round streams as new blocks.
            List<Integer> superseded = t.supersedeRound();
            if (!superseded.isEmpty()) {
              rooms.toWatchers(t.turn.sessionId(), Protocol.BLOCKS_SUPERSEDED,
                  new Payloads.BlocksSuperseded(t.turn.id(), superseded));
            }
          }
          long delay = settings.crashRetryDelay().toMillis();
          // the silence check counts from the end of the wait
          t.lastEventAtMillis = settings.clock().millis() + delay;
          if (!again) {
            t.crashRetries++;
          }
          drone.status = DroneStatus.BUSY;
          drone.activeTurnId = t.turn.id();
          answer = new Payloads.CrashRecoveryResponse(t.turn.id(),
              Payloads.CrashRecoveryResponse.RETRY,
              new Payloads.ProcessWorkOrder(t.workOrder, firstSeq, req.journaledMessages() > 0),
              delay);
          if (!again) {
            rooms.toWatchers(t.turn.sessionId(), Protocol.TURN_RECOVERED,
                new WorkspacePayloads.TurnRecovered(t.turn.id(), TurnRecoveredText.of(delay), delay,
                    t.crashRetries));
          }
          log.info("drone {} crashed during turn {}; retrying from seq {} in {} ms", drone.id,
              t.turn.id(), firstSeq, delay);
        }
      }
    }
    if (noOrder) {
      turns.end(t, TurnStatus.INTERRUPTED, null, "the drone crashed while running this turn, "
          + "and its work order could not be made again after the server restarted");
    }
    if (Payloads.CrashRecoveryResponse.DISCARD.equals(answer.action())) {
      synchronized (router.lock()) {
        if (drone.connection == c && drone.activeTurnId == null) {
          drone.status = DroneStatus.AVAILABLE;
        }
      }
    }
    c.emit(Protocol.CRASH_RECOVERY_RESPONSE, Protocol.args(answer));
    reply(ack, answer);
  }

  private void saveStatus(ConnectedDrone drone, DroneStatus status) {
    try {
      store.updateDroneStatus(drone.id, status, settings.clock().instant());
    } catch (StoreException e) {
      log.debug("could not store drone status: {}", e.getMessage());
    }
  }
}
