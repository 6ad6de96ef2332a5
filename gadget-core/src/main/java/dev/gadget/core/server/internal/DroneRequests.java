package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.WorkspacePayloads;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A page's requests that a drone must answer (lock a chat session to a workspace, switch a
 * workspace's mode, release a lock, report the workspace's state): forwarded to the drone, on
 * this node or (in a cluster) through the node that holds it, and the page always gets an
 * answer.
 */
final class DroneRequests {
  private static final Logger log = LoggerFactory.getLogger(DroneRequests.class);

  private final ServerSettings settings;
  private final ChatStore store;
  private final Ownership owned;
  private final DroneRouter router;
  /** In a cluster, reaches a drone another node holds; else null. */
  private final ClusterNode node;

  DroneRequests(ServerSettings settings, Ownership owned, DroneRouter router, ClusterNode node) {
    this.settings = settings;
    this.store = settings.store();
    this.owned = owned;
    this.router = router;
    this.node = node;
  }

  /** Locks a chat session to a drone's workspace (the drone clones the project there). */
  void lockSession(String userId, Payloads.SessionLock req, Ack ack) {
    ChatSession session = owned.session(userId, req.sessionId());
    Project project = owned.project(userId, session.projectId());
    ConnectedDrone drone = null;
    RequestException here = null;
    synchronized (router.lock()) {
      try {
        drone = router.pick(userId, session.workspaceId(), req.droneId());
      } catch (RequestException e) {
        here = e;
      }
    }
    String droneId;
    String workspaceId;
    DroneCall call;
    if (drone != null) {
      droneId = drone.id;
      workspaceId = drone.workspaceId;
      call = drone.connection::emitWithAck;
    } else {
      RequestException refused = here;
      DroneRegistration elsewhere = elsewhere(userId, session.workspaceId(), req.droneId())
          .orElseThrow(() -> refused);
      droneId = elsewhere.id();
      workspaceId = elsewhere.workspaceId();
      call = remote(droneId);
    }
    Payloads.SessionLock forward = new Payloads.SessionLock(session.id(), droneId,
        session.name(), WorkOrder.ProjectRef.of(project));
    askDrone(call, Protocol.REQUEST_SESSION_LOCK, forward, ack, () -> {
      store.setSessionWorkspace(session.id(), workspaceId);
      return Map.of("ok", true, "workspaceId", workspaceId, "droneId", droneId);
    });
  }

  /** Switches a drone's workspace between agent use and the user's own use. */
  void workspaceMode(String userId, Payloads.WorkspaceModeRequest req, Ack ack) {
    ConnectedDrone drone = router.find(req.droneId());
    askDrone(callOf(userId, req.droneId()), Protocol.REQUEST_WORKSPACE_MODE,
        new Payloads.WorkspaceModeRequest(req.droneId(), req.mode()), ack, () -> {
          if (drone != null) {
            drone.mode = req.mode(); // elsewhere, the drone's workspaceMode news tells its node
          }
          return Payloads.OkReply.success();
        });
  }

  /** Releases a drone's session and project lock (its {@code workspace.json} says so). */
  void releaseLock(String userId, WorkspacePayloads.DroneRef req, Ack ack) {
    askDrone(callOf(userId, req.droneId()), Protocol.RELEASE_SESSION_LOCK,
        new WorkspacePayloads.DroneRef(req.droneId()), ack, Payloads.OkReply::success);
  }

  /** Asks a drone for its workspace state; the page gets {@code {"state"}} or {@code {"error"}}. */
  void workspaceState(String userId, WorkspacePayloads.DroneRef req, Ack ack) {
    callOf(userId, req.droneId()).ask(Protocol.GET_WORKSPACE_STATE, Protocol.args(req),
        settings.ackTimeout()).whenComplete((r, e) -> {
          Object answer;
          if (e != null) {
            answer = new Payloads.ErrorReply("the drone did not answer: " + e.getMessage());
          } else {
            WorkspacePayloads.WorkspaceStateReply reply;
            try {
              reply = Protocol.payload(r, WorkspacePayloads.WorkspaceStateReply.class);
            } catch (IllegalArgumentException ex) {
              log.warn("a drone's workspace state does not fit: {}", ex.getMessage());
              reply = new WorkspacePayloads.WorkspaceStateReply(false,
                  "the drone sent an invalid answer", null);
            }
            answer = reply.ok() && reply.state() != null
                ? Map.of("state", reply.state())
                : new Payloads.ErrorReply(reply.error() == null
                    ? "the drone sent no state" : reply.error());
          }
          Requests.reply(ack, answer);
        });
  }

  /** The user's drone {@code droneId}: its socket here, else through the node that holds it. */
  private DroneCall callOf(String userId, String droneId) {
    ConnectedDrone drone = router.find(droneId);
    Connection connection = drone == null ? null : drone.connection;
    if (drone != null && drone.userId.equals(userId) && connection != null) {
      return connection::emitWithAck;
    }
    if (drone == null && elsewhere(userId, null, droneId).isPresent()) {
      return remote(droneId);
    }
    throw new RequestException("that drone is not connected");
  }

  /**
   * In a cluster, a drone of the user that another node holds: {@code droneId}, or without
   * it the one of {@code workspaceId} first, else any.
   */
  private Optional<DroneRegistration> elsewhere(String userId, String workspaceId,
      String droneId) {
    if (node == null) {
      return Optional.empty();
    }
    List<DroneRegistration> drones = new ArrayList<>(store.listDrones(userId));
    drones.removeIf(d -> droneId != null && !d.id().equals(droneId));
    drones.sort(Comparator.comparing(d -> !d.workspaceId().equals(workspaceId)));
    return drones.stream().filter(d -> node.heldElsewhere(d.id())).findFirst();
  }

  private DroneCall remote(String droneId) {
    return (event, args, timeout) -> node.drones().ask(droneId, event, args, timeout);
  }

  /**
   * Forwards a page's request to a drone and answers the page: {@code onOk}'s reply when the
   * drone agrees, otherwise {@code {"error"}} with the drone's reason. Never leaves the page
   * without an answer.
   */
  private void askDrone(DroneCall drone, String event, Object payload, Ack ack,
      Supplier<Object> onOk) {
    drone.ask(event, Protocol.args(payload), settings.ackTimeout())
        .whenComplete((r, e) -> {
          Object answer;
          try {
            if (e != null) {
              answer = new Payloads.ErrorReply("the drone did not answer: " + e.getMessage());
            } else {
              Payloads.OkReply ok = safeOk(r);
              answer = ok.ok() ? onOk.get() : new Payloads.ErrorReply(ok.error());
            }
          } catch (StoreException ex) {
            answer = new Payloads.ErrorReply(
                "the server cannot reach its store: " + ex.getMessage());
          } catch (RuntimeException ex) {
            log.warn("handling the drone's answer to '{}' failed", event, ex);
            answer = new Payloads.ErrorReply("the server failed: " + ex.getMessage());
          }
          Requests.reply(ack, answer);
        });
  }

  private static Payloads.OkReply safeOk(List<JsonNode> reply) {
    try {
      return Protocol.payload(reply, Payloads.OkReply.class);
    } catch (IllegalArgumentException e) {
      return Payloads.OkReply.failure("the drone sent an invalid answer");
    }
  }
}
