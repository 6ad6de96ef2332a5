package dev.gadget.core.server.internal;

import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.User;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tool calls that wait for a person: each chat session's approval policy (the server's default
 * until a page sets one), the calls a drone holds back, stored with their live turn and shown to
 * every watching page, the first answer (which wins), the timeout that denies an unanswered
 * call, and what was approved for the rest of a session. Policies are kept in the store (every
 * server node, and a restarted one, uses the one a page set); session-wide approvals are kept in
 * memory.
 */
public final class ApprovalDesk {
  private static final Logger log = LoggerFactory.getLogger(ApprovalDesk.class);

  private final ServerSettings settings;
  private final ServerTimer timer;
  private final WatcherRooms rooms;
  private final DroneRouter router;
  private final LiveTurns turns;
  private final Duration timeout;
  private final ApprovalPolicy defaultPolicy;
  /** Per session: {tool, command prefix or null} approved for the rest of the session. */
  private final Map<String, List<String[]>> grants = new ConcurrentHashMap<>();

  public ApprovalDesk(ServerSettings settings, ServerTimer timer, WatcherRooms rooms,
      DroneRouter router, LiveTurns turns, Duration timeout, ApprovalPolicy defaultPolicy) {
    this.settings = settings;
    this.timer = timer;
    this.rooms = rooms;
    this.router = router;
    this.turns = turns;
    this.timeout = timeout;
    this.defaultPolicy = defaultPolicy;
  }

  /** The policy of {@code session}: the one stored with it, else the server's default. */
  public ApprovalPolicy policy(ChatSession session) {
    return session.approvalPolicy() == null
        ? defaultPolicy : ApprovalPolicy.fromWireName(session.approvalPolicy());
  }

  /** Stores the policy of {@code sessionId} (its next turns use it, on any node). */
  void setPolicy(String sessionId, ApprovalPolicy policy) {
    settings.store().setSessionApprovalPolicy(sessionId, policy.wireName());
  }

  /** Stores whether the agent may write tools in {@code sessionId} (its next turns, any node). */
  void setCreateTools(String sessionId, boolean allowed) {
    settings.store().setSessionCreateTools(sessionId, allowed);
  }

  /** {@code approvalRequest} from drone {@code droneId}: answers at once or holds the call. */
  void request(String droneId, ApprovalPayloads.ApprovalRequest req, Ack ack) {
    LiveTurn t = turns.get(req.turnId());
    if (t == null || !t.droneId.equals(droneId)) {
      Requests.reply(ack, new ApprovalPayloads.ApprovalAck(ToolApproval.deny("server",
          "the server does not follow this turn any more"), 0));
      return;
    }
    ApprovalPayloads.ApprovalAck answer;
    synchronized (t.lock) {
      ToolApproval decided = t.decidedApprovals.get(req.callId());
      LiveTurn.PendingApproval pending = t.pendingApprovals.get(req.callId());
      Instant now = settings.clock().instant();
      if (decided != null) {
        answer = new ApprovalPayloads.ApprovalAck(decided, 0);
      } else if (t.ended) {
        answer = new ApprovalPayloads.ApprovalAck(ToolApproval.deny("server", "the turn has ended"), 0);
      } else if (pending != null) {
        answer = new ApprovalPayloads.ApprovalAck(null,
            Math.max(0, Duration.between(now, pending.event().expiresAt()).toMillis()));
      } else if (granted(t.turn.sessionId(), req.toolName(), req.command())) {
        ToolApproval session = ToolApproval.approve(ToolApproval.SESSION);
        t.decidedApprovals.put(req.callId(), session);
        answer = new ApprovalPayloads.ApprovalAck(session, 0);
      } else {
        ApprovalPayloads.ApprovalPending event = new ApprovalPayloads.ApprovalPending(t.turn.sessionId(),
            t.turn.id(), req.callId(), req.toolName(),
            req.parameters() == null ? "{}" : req.parameters(), req.command(),
            now.plus(timeout));
        ScheduledFuture<?> expiry = timer.schedule(() -> decide(t, req.callId(),
            ToolApproval.deny(ToolApproval.TIMEOUT, "nobody answered within "
                + timeout.toSeconds() + " s")), timeout);
        t.pendingApprovals.put(req.callId(), new LiveTurn.PendingApproval(event, expiry));
        log.info("turn {}: {} waits for approval", t.turn.id(), req.toolName());
        rooms.toWatchers(t.turn.sessionId(), Protocol.APPROVAL_PENDING, event);
        answer = new ApprovalPayloads.ApprovalAck(null, timeout.toMillis());
      }
    }
    Requests.reply(ack, answer);
  }

  /** {@code answerApproval} from a page of {@code userId}: the first answer wins. */
  void answer(String userId, ApprovalPayloads.AnswerApproval req) {
    LiveTurn t = turns.get(req.turnId());
    if (t == null || !t.turn.userId().equals(userId)) {
      throw new RequestException("no call of this turn waits for approval (the turn is not "
          + "running)");
    }
    String by = settings.store().findUser(userId).map(User::username).orElse(userId);
    ToolApproval approval;
    switch (req.decision()) {
      case APPROVED:
        approval = ToolApproval.approve(by);
        break;
      case APPROVED_FOR_SESSION:
        approval = ToolApproval.approveForSession(by, req.scope());
        break;
      default:
        approval = ToolApproval.deny(by, req.reason() == null || req.reason().isBlank()
            ? "the user denied it" : req.reason().strip());
        break;
    }
    synchronized (t.lock) {
      ToolApproval earlier = t.decidedApprovals.get(req.callId());
      if (earlier != null) {
        throw new RequestException("this call was already decided: "
            + describe(earlier));
      }
      if (!t.pendingApprovals.containsKey(req.callId())) {
        throw new RequestException("no call " + req.callId() + " waits for approval");
      }
      decide(t, req.callId(), approval);
    }
  }

  /** Decides a waiting call once: tells the pages and the drone, remembers session grants. */
  private void decide(LiveTurn t, String callId, ToolApproval approval) {
    synchronized (t.lock) {
      LiveTurn.PendingApproval pending = t.pendingApprovals.remove(callId);
      if (pending == null) {
        return;
      }
      if (pending.expiry() != null) {
        pending.expiry().cancel(false);
      }
      t.decidedApprovals.put(callId, approval);
      if (approval.decision() == ToolApproval.Decision.APPROVED_FOR_SESSION) {
        grants.computeIfAbsent(t.turn.sessionId(), k -> new CopyOnWriteArrayList<>())
            .add(new String[] {pending.event().toolName(), approval.scope()});
      }
      log.info("turn {}: {} {}", t.turn.id(), pending.event().toolName(), describe(approval));
      ApprovalPayloads.ApprovalDecided event = new ApprovalPayloads.ApprovalDecided(t.turn.sessionId(),
          t.turn.id(), callId, approval);
      rooms.toWatchers(t.turn.sessionId(), Protocol.APPROVAL_DECIDED, event);
      ConnectedDrone d = router.find(t.droneId);
      Connection c = d == null ? null : d.connection;
      if (c != null) {
        // Lost on the way, it is asked again: the drone repeats its request until decided.
        c.emit(Protocol.APPROVAL_DECIDED, Protocol.args(event));
      }
    }
  }

  private boolean granted(String sessionId, String tool, String command) {
    for (String[] g : grants.getOrDefault(sessionId, List.of())) {
      if (g[0].equals(tool) && (g[1] == null || ApprovalPolicy.prefixCovers(g[1], command))) {
        return true;
      }
    }
    return false;
  }

  private static String describe(ToolApproval a) {
    switch (a.decision()) {
      case APPROVED:
        return "approved by " + a.decidedBy();
      case APPROVED_FOR_SESSION:
        return "approved for this chat by " + a.decidedBy();
      default:
        return ToolApproval.TIMEOUT.equals(a.decidedBy()) ? "denied: " + a.reason()
            : "denied by " + a.decidedBy();
    }
  }
}
