package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.Requests.handle;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.User;
import dev.gadget.core.protocol.ChangePayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A page's requests about the agent's changes, which the drone that made them carries out on its
 * checkout: undo one turn's changes (the revert is stored as a diff block of that turn and told
 * to the session's watchers), commit the session's changes on a branch, push that branch.
 * Nothing is committed or pushed unless a page asks.
 */
final class ChangeRequests {
  private static final Logger log = LoggerFactory.getLogger(ChangeRequests.class);
  /** Git on a large checkout takes a while: the drone's answer is awaited this long. */
  static final Duration GIT_ANSWER_TIMEOUT = Duration.ofMinutes(3);

  private final ServerSettings settings;
  private final ChatStore store;
  private final Ownership owned;
  private final DroneRouter router;
  private final LiveTurns turns;
  private final WatcherRooms rooms;
  /** In a cluster, reaches a drone another node holds; else null. */
  private final ClusterNode node;

  ChangeRequests(ServerSettings settings, Ownership owned, DroneRouter router, LiveTurns turns,
      ClusterNode node,
      WatcherRooms rooms) {
    this.node = node;
    this.settings = settings;
    this.store = settings.store();
    this.owned = owned;
    this.router = router;
    this.turns = turns;
    this.rooms = rooms;
  }

  void register(Connection c, String userId) {
    handle(c, Protocol.UNDO_TURN, ChangePayloads.UndoTurn.class, (req, ack) -> undo(userId, req, ack));
    handle(c, Protocol.COMMIT_CHANGES, ChangePayloads.CommitChanges.class,
        (req, ack) -> commit(userId, req, ack));
    handle(c, Protocol.PUSH_CHANGES, ChangePayloads.PushChanges.class,
        (req, ack) -> push(userId, req, ack));
  }

  private void undo(String userId, ChangePayloads.UndoTurn req, Ack ack) {
    ChatTurn turn = store.findTurn(req.turnId()).filter(t -> t.userId().equals(userId))
        .orElseThrow(() -> new RequestException("turn not found"));
    ChatSession session = owned.session(userId, turn.sessionId());
    Project project = owned.project(userId, session.projectId());
    idle(session);
    boolean changed = false;
    for (TurnBlock b : turn.blocks()) {
      if (b instanceof TurnBlock.Diff d) {
        if (d.content().revertOf() != null) {
          throw new RequestException("this turn's changes were undone already");
        }
        changed = true;
      }
    }
    if (!changed) {
      throw new RequestException("this turn changed no files; there is nothing to undo");
    }
    DroneCall drone = droneOf(userId, List.of(turn));
    ChangePayloads.ChangesRequest forward = new ChangePayloads.ChangesRequest(project.slug(),
        List.of(turn.id()), null, null, null, null, null);
    ask(drone, Protocol.UNDO_TURN, forward, ack, reply -> {
      if (reply.diff() == null) {
        return new Payloads.ErrorReply("the drone sent an invalid answer");
      }
      synchronized (turns.sessionLock(session.id())) {
        int seq = store.findTurn(turn.id()).orElse(turn).blocks().stream()
            .mapToInt(TurnBlock::seq).max().orElse(-1) + 1;
        TurnBlock block = new TurnBlock.Diff(seq, settings.clock().instant(),
            reply.diff().asRevertOf(turn.id()));
        store.appendBlock(turn.id(), block);
        turns.turnsChanged(session.id());
        rooms.toWatchers(session.id(), Protocol.TURN_CHANGES,
            new ChangePayloads.TurnChanges(turn.id(), -1, null, block));
        return Map.of("ok", true, "block", block);
      }
    });
  }

  private void commit(String userId, ChangePayloads.CommitChanges req, Ack ack) {
    ChatSession session = owned.session(userId, req.sessionId());
    Project project = owned.project(userId, session.projectId());
    idle(session);
    List<ChatTurn> changed = changedTurns(session);
    DroneCall drone = droneOf(userId, changed);
    String branch = branch(req.branch(), session);
    boolean propose = req.message() == null || req.message().isBlank();
    List<String> prompts = changed.stream().map(ChatTurn::prompt).toList();
    // a drone of this release proposes from the turns it commits (not undone, not committed)
    String message = propose ? ChangePayloads.proposedMessage(prompts)
        : req.message().strip() + "\n";
    User user = store.findUser(userId).orElseThrow(() -> new RequestException("user not found"));
    List<String> ids = changed.stream().map(ChatTurn::id).toList();
    ask(drone, Protocol.COMMIT_CHANGES, new ChangePayloads.ChangesRequest(project.slug(), ids, branch,
        message, user.displayName(), user.username() + "@gadget.invalid", null,
        propose ? prompts : List.of()), ack,
        reply -> {
          Map<String, Object> answer = new LinkedHashMap<>();
          answer.put("ok", true);
          answer.put("branch", branch);
          answer.put("commit", reply.commit());
          answer.put("message", reply.message() != null ? reply.message() : message);
          answer.put("turnIds", reply.turnIds() == null ? List.of() : reply.turnIds());
          return answer;
        });
  }

  private void push(String userId, ChangePayloads.PushChanges req, Ack ack) {
    ChatSession session = owned.session(userId, req.sessionId());
    Project project = owned.project(userId, session.projectId());
    DroneCall drone = droneOf(userId, changedTurns(session));
    String branch = branch(req.branch(), session);
    ask(drone, Protocol.PUSH_CHANGES, new ChangePayloads.ChangesRequest(project.slug(), List.of(),
        branch, null, null, null, "origin"), ack,
        reply -> Map.of("ok", true, "branch", branch, "remote", "origin"));
  }

  private static String branch(String asked, ChatSession session) {
    return asked == null || asked.isBlank() ? "gadget/" + session.id() : asked.strip();
  }

  /** Refuses while a turn of {@code session} runs (on any node). */
  void idle(ChatSession session) {
    String refusal = "a turn is running in this chat; wait for it to end";
    if (turns.runningIn(session.id())) {
      throw new RequestException(refusal);
    }
    if (node != null) {
      node.checkIdle(session.id(), refusal);
    }
  }

  /** The session's turns with changes of their own (not only an undo's record), in order. */
  private List<ChatTurn> changedTurns(ChatSession session) {
    List<ChatTurn> out = new ArrayList<>();
    for (ChatTurn t : store.listTurns(session.id())) {
      if (t.blocks().stream().anyMatch(b -> b instanceof TurnBlock.Diff d
          && d.content().revertOf() == null)) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * The drone that made the latest of {@code changed}'s changes: on this node, or (in a
   * cluster) through the node that holds it.
   */
  private DroneCall droneOf(String userId, List<ChatTurn> changed) {
    if (changed.isEmpty()) {
      throw new RequestException("no turn of this chat changed any file");
    }
    DroneCall call = droneCall(userId, changed.get(changed.size() - 1).droneId());
    if (call == null) {
      throw new RequestException("the drone that made these changes is not connected");
    }
    return call;
  }

  /**
   * Drone {@code droneId} of {@code userId}: on this node, or (in a cluster) through the node
   * that holds it; {@code null} when it is not connected anywhere.
   */
  DroneCall droneCall(String userId, String droneId) {
    ConnectedDrone drone = droneId == null ? null : router.find(droneId);
    Connection connection = drone == null ? null : drone.connection;
    if (drone != null && drone.userId.equals(userId) && connection != null
        && connection.isConnected()) {
      return connection::emitWithAck;
    }
    if (node != null && droneId != null && node.heldElsewhere(droneId)) {
      return (event, args, timeout) -> node.drones().ask(droneId, event, args,
          timeout);
    }
    return null;
  }

  /** Asks the drone and answers the page: {@code onOk}'s answer, or the drone's reason. */
  private void ask(DroneCall drone, String event, Object payload, Ack ack,
      Function<ChangePayloads.ChangesReply, Object> onOk) {
    drone.ask(event, Protocol.args(payload), GIT_ANSWER_TIMEOUT).whenComplete((r, e) -> {
      Object answer;
      try {
        if (e != null) {
          answer = new Payloads.ErrorReply("the drone did not answer: " + e.getMessage());
        } else {
          ChangePayloads.ChangesReply reply = read(r);
          answer = reply.ok() ? onOk.apply(reply) : new Payloads.ErrorReply(
              reply.error() == null ? "the drone refused" : reply.error());
        }
      } catch (StoreException ex) {
        answer = new Payloads.ErrorReply("the server cannot reach its store: " + ex.getMessage());
      } catch (RuntimeException ex) {
        log.warn("handling the drone's answer to '{}' failed", event, ex);
        answer = new Payloads.ErrorReply("the server failed: " + ex.getMessage());
      }
      Requests.reply(ack, answer);
    });
  }

  private static ChangePayloads.ChangesReply read(List<JsonNode> reply) {
    try {
      return Protocol.payload(reply, ChangePayloads.ChangesReply.class);
    } catch (IllegalArgumentException e) {
      return ChangePayloads.ChangesReply.failure("the drone sent an invalid answer");
    }
  }
}
