package dev.gadget.core.server.internal;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.transport.Connection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * From a prompt to a running turn: one turn at a time per chat session, a drone chosen, the turn
 * stored, the work order (with the session's context) sent and its acknowledgement awaited; and
 * a user's cancel forwarded to the drone.
 */
final class TurnDispatcher {
  private static final Logger log = LoggerFactory.getLogger(TurnDispatcher.class);

  private final ServerSettings settings;
  private final ChatStore store;
  private final Ownership owned;
  private final DroneRouter router;
  private final LiveTurns turns;
  private final ProviderResolver providers;
  private final ApprovalDesk approvals;
  /** In a cluster: claims each turn's chat on every node before its work order goes; else null. */
  private final ClusterNode node;

  private final WorkOrders workOrders;

  TurnDispatcher(ServerSettings settings, Ownership owned, DroneRouter router, LiveTurns turns,
      ProviderResolver providers, ApprovalDesk approvals, ClusterNode node) {
    this.node = node;
    this.approvals = approvals;
    this.providers = providers;
    this.settings = settings;
    this.store = settings.store();
    this.owned = owned;
    this.router = router;
    this.turns = turns;
    this.workOrders = new WorkOrders(store, providers, approvals);
  }

  /**
   * A prompt of a page or an {@code /agent} client: to a drone here, else (in a cluster) to the
   * node that holds one of the user's (the session's workspace first), whose answer is this one.
   */
  String submitAnywhere(String userId, Payloads.SubmitPrompt req) {
    if (node == null) {
      return submit(userId, req);
    }
    ChatSession session = owned.session(userId, req.sessionId());
    node.checkIdle(session.id());
    try {
      return submit(userId, req);
    } catch (RequestException e) {
      if (!DroneRouter.noFreeDrone(e)) {
        throw e;
      }
      return node.submitElsewhere(userId, session, req, e);
    }
  }

  /**
   * Starts a turn for the prompt here and sends its work order; returns the turn's id. The routing
   * lock, which every prompt of every user takes, is held only to check the session, pick a
   * drone and reserve both: the store's reads and the turn's synced write (each may wait for the
   * disk) are made outside it, so prompts of other sessions do not queue behind them.
   */
  String submit(String userId, Payloads.SubmitPrompt req) {
    ChatSession session = owned.session(userId, req.sessionId());
    String prompt = Requests.required(req.prompt(), "prompt");
    Project project = owned.project(userId, session.projectId());
    ProviderResolver.Resolved llm = providers.resolve(session);
    long changes = turns.changes(session.id());
    List<ChatTurn> history = store.listTurns(session.id());
    ConnectedDrone drone;
    ChatTurn turn;
    synchronized (router.lock()) {
      if (turns.runningIn(session.id())) {
        throw new RequestException("a turn is already running in this chat session");
      }
      if (turns.changes(session.id()) != changes) {
        history = store.listTurns(session.id()); // a turn ended or was undone meanwhile
      }
      drone = router.pick(userId, session.workspaceId(), null);
      long seq = history.isEmpty() ? 0 : history.get(history.size() - 1).seq() + 1;
      turn = ChatTurn.start(
          Ids.next(), session.id(), userId, seq, prompt, req.mode(), settings.clock().instant())
          .withModel(llm.model()).withDrone(drone.id); // stored with the turn: one write
      drone.status = DroneStatus.BUSY;
      drone.activeTurnId = turn.id();
      turns.reserve(session.id());
    }
    if (node != null && node.heldElsewhere(drone.id)) {
      // fenced: the drone went to another node (a greater lease), this socket is one it left
      unreserve(drone, turn);
      node.lost(drone.id);
      throw new RequestException(DroneRouter.NO_DRONE); // so the prompt goes to that node
    }
    if (node != null && !node.claimChat(session.id(), turn.id())) {
      unreserve(drone, turn); // a turn of this chat runs on another node
      throw new RequestException("a turn is already running in this chat session");
    }
    WorkOrder order;
    try {
      order = workOrders.of(session, project, llm, history, turn, drone.workspaceId);
      store.createTurn(turn);
    } catch (RuntimeException e) {
      unreserve(drone, turn);
      if (node != null) {
        node.releaseChat(turn);
      }
      throw e;
    }
    LiveTurn liveTurn;
    Connection droneConnection;
    synchronized (router.lock()) {
      liveTurn = turns.start(turn, order, drone.id);
      droneConnection = drone.connection;
      if (droneConnection != null && turn.id().equals(drone.activeTurnId)) {
        drone.status = DroneStatus.BUSY; // a reconnect meanwhile marked it available
      }
    }
    if (droneConnection == null) {
      // it went away while the turn was stored: the turn waits for it as for any drone
      turns.awaitReturn(liveTurn, "the drone disconnected before it got the work order");
      return turn.id();
    }
    dispatch(liveTurn, drone, droneConnection,
        new Payloads.ProcessWorkOrder(liveTurn.workOrder, 0, false),
        !Objects.equals(drone.workspaceId, session.workspaceId()));
    return liveTurn.turn.id();
  }

  /** The turn reserved on {@code drone} will not start. */
  private void unreserve(ConnectedDrone drone, ChatTurn turn) {
    synchronized (router.lock()) {
      turns.unreserve(turn.sessionId());
      drone.release(turn.id());
    }
  }

  /**
   * Sends a work order; the turn ends as an error if the drone does not take it. Once it does,
   * the session is bound to the drone's workspace if {@code bindWorkspace} (it was not yet).
   */
  void dispatch(LiveTurn t, ConnectedDrone drone, Connection connection,
      Payloads.ProcessWorkOrder order, boolean bindWorkspace) {
    connection.emitWithAck(Protocol.PROCESS_WORK_ORDER, Protocol.args(order),
            settings.ackTimeout())
        .whenComplete((reply, error) -> {
          if (error != null) {
            turns.end(t, TurnStatus.ERROR, null, "the drone did not accept the work order: "
                + error.getMessage());
            return;
          }
          Payloads.WorkOrderAck ack;
          try {
            ack = Protocol.payload(reply, Payloads.WorkOrderAck.class);
          } catch (IllegalArgumentException e) {
            turns.end(t, TurnStatus.ERROR, null, "the drone sent an invalid acknowledgement");
            return;
          }
          if (!ack.accepted()) {
            turns.end(t, TurnStatus.ERROR, null,
                "the drone refused the work order: " + ack.reason());
            return;
          }
          if (!bindWorkspace) {
            return;
          }
          try {
            store.setSessionWorkspace(t.turn.sessionId(), drone.workspaceId);
          } catch (StoreException e) {
            log.warn("could not bind session {} to workspace {}: {}", t.turn.sessionId(),
                drone.workspaceId, e.getMessage());
          }
        });
  }

  /** Asks the turn's drone to cancel; the turn ends as cancelled even if it never confirms. */
  void cancel(String userId, String turnId) {
    LiveTurn t = turns.get(Requests.required(turnId, "turnId"));
    if (t == null || !t.turn.userId().equals(userId)) {
      Optional<ChatTurn> stored = store.findTurn(turnId).filter(x -> x.userId().equals(userId));
      throw new RequestException(stored.isPresent() ? "the turn has already ended"
          : "turn not found");
    }
    ConnectedDrone d = router.find(t.droneId);
    Connection droneConnection = d == null ? null : d.connection;
    if (droneConnection != null) {
      droneConnection.emitWithAck(Protocol.CANCEL_WORK_ORDER,
          Protocol.args(new Payloads.CancelWorkOrder(turnId)), settings.ackTimeout());
    }
    turns.awaitCancel(t);
  }
}
