package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.WorkspacePayloads;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A page's requests that a drone must answer (lock a chat session to a workspace, switch a
 * workspace's mode): forwarded to the drone, and the page always gets an answer.
 */
final class DroneRequests {
  private static final Logger log = LoggerFactory.getLogger(DroneRequests.class);

  private final ServerSettings settings;
  private final ChatStore store;
  private final Ownership owned;
  private final DroneRouter router;

  DroneRequests(ServerSettings settings, Ownership owned, DroneRouter router) {
    this.settings = settings;
    this.store = settings.store();
    this.owned = owned;
    this.router = router;
  }

  /** Locks a chat session to a drone's workspace (the drone clones the project there). */
  void lockSession(String userId, Payloads.SessionLock req, Ack ack) {
    ChatSession session = owned.session(userId, req.sessionId());
    Project project = owned.project(userId, session.projectId());
    ConnectedDrone drone;
    Connection connection;
    synchronized (router.lock()) {
      drone = router.pick(userId, session.workspaceId(), req.droneId());
      connection = drone.connection;
    }
    Payloads.SessionLock forward = new Payloads.SessionLock(session.id(), drone.id,
        session.name(), WorkOrder.ProjectRef.of(project));
    askDrone(connection, Protocol.REQUEST_SESSION_LOCK, forward, ack, () -> {
      store.setSessionWorkspace(session.id(), drone.workspaceId);
      return Map.of("ok", true, "workspaceId", drone.workspaceId, "droneId", drone.id);
    });
  }

  /** Switches a drone's workspace between agent use and the user's own use. */
  void workspaceMode(String userId, Payloads.WorkspaceModeRequest req, Ack ack) {
    ConnectedDrone drone = router.find(req.droneId());
    Connection connection = drone == null ? null : drone.connection;
    if (drone == null || !drone.userId.equals(userId) || connection == null) {
      throw new RequestException("that drone is not connected");
    }
    askDrone(connection, Protocol.REQUEST_WORKSPACE_MODE,
        new Payloads.WorkspaceModeRequest(drone.id, req.mode()), ack, () -> {
          drone.mode = req.mode();
          return Payloads.OkReply.success();
        });
  }

  /** Releases a drone's session and project lock (its {@code workspace.json} says so). */
  void releaseLock(String userId, WorkspacePayloads.DroneRef req, Ack ack) {
    Connection connection = connectionOf(userId, req.droneId());
    askDrone(connection, Protocol.RELEASE_SESSION_LOCK, new WorkspacePayloads.DroneRef(req.droneId()),
        ack, Payloads.OkReply::success);
  }

  /** Asks a drone for its workspace state; the page gets {@code {"state"}} or {@code {"error"}}. */
  void workspaceState(String userId, WorkspacePayloads.DroneRef req, Ack ack) {
    Connection connection = connectionOf(userId, req.droneId());
    connection.emitWithAck(Protocol.GET_WORKSPACE_STATE, Protocol.args(req),
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

  private Connection connectionOf(String userId, String droneId) {
    ConnectedDrone drone = router.find(droneId);
    Connection connection = drone == null ? null : drone.connection;
    if (drone == null || !drone.userId.equals(userId) || connection == null) {
      throw new RequestException("that drone is not connected");
    }
    return connection;
  }

  /**
   * Forwards a page's request to a drone and answers the page: {@code onOk}'s reply when the
   * drone agrees, otherwise {@code {"error"}} with the drone's reason. Never leaves the page
   * without an answer.
   */
  private void askDrone(Connection drone, String event, Object payload, Ack ack,
      Supplier<Object> onOk) {
    drone.emitWithAck(event, Protocol.args(payload), settings.ackTimeout())
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
