package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.AgentTurnEvents.map;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.PayloadException;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.transport.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seed 004's agent event schema on {@code /agent}, a second face of the same server: a client
 * signed in with a user token sends {@code query {prompt, session_id}}, the prompt runs as a turn
 * of the user's chat session (as a page's would), and the client is told it in seed 004's
 * events ({@link AgentTurnEvents}), then {@code session_memory} and {@code tool_count}. A client
 * reaches only its own user's sessions; an id it does not own is a session id it names, never
 * another user's session. Problems are {@code error {message}}, in people's words.
 */
public final class AgentFace {
  private static final Logger log = LoggerFactory.getLogger(AgentFace.class);

  /** The most messages {@code session_memory} sends: the session's last ones. */
  static final int MEMORY_MESSAGES = 50;
  /** The name of a session made for a client's own session id. */
  static final String SESSION_NAME_PREFIX = "Agent session ";

  private final ServerSettings settings;
  private final ChatStore store;
  private final WatcherRooms rooms;
  private final DroneRouter router;
  private final Ownership owned;
  private final TurnDispatcher dispatcher;
  /** In a cluster: this node, whose prompts may go to a drone another node holds; else null. */
  private final ClusterNode node;
  private final Map<Connection, Set<Following>> following = new ConcurrentHashMap<>();

  private record Following(String sessionId, AgentTurnEvents events) {}

  public AgentFace(ServerSettings settings, WatcherRooms rooms, LiveTurns turns,
      DroneRouter router, ApprovalDesk approvals, ClusterNode node) {
    this.settings = settings;
    this.store = settings.store();
    this.rooms = rooms;
    this.router = router;
    this.owned = new Ownership(store);
    this.node = node;
    this.dispatcher = new TurnDispatcher(settings, owned, router, turns,
        new ProviderResolver(settings), approvals, node);
  }

  /** A client of {@code userId} connected: it is greeted and may query. */
  public void connected(Connection c, String userId) {
    following.put(c, ConcurrentHashMap.newKeySet());
    c.on(Protocol.QUERY, (args, ack) -> query(c, userId, args));
    emit(c, Protocol.CONNECTED, map("data", "Connected to agent"));
    toolCount(c, userId, true);
  }

  /**
   * {@code tool_count} (then {@code orphans_cleaned} when {@code orphans} and there are some):
   * of the user's drones here; in a cluster, of the user's drones on every node, sent once the
   * nodes that hold them answered ({@link RemoteDrones#userTools}, bounded; a node that does not
   * answer in time leaves its drones out).
   */
  private void toolCount(Connection c, String userId, boolean orphans) {
    if (node == null) {
      tell(c, new RemoteDrones.UserTools(router.toolCount(userId),
          router.orphansCleaned(userId)), orphans);
      return;
    }
    node.drones().userTools(userId).thenAccept(t -> tell(c, t, orphans));
  }

  private static void tell(Connection c, RemoteDrones.UserTools tools, boolean orphans) {
    emit(c, Protocol.TOOL_COUNT, map("count", tools.count()));
    if (orphans && tools.orphansCleaned() > 0) {
      emit(c, Protocol.AGENT_EVENT, map("event_type", "orphans_cleaned", "data",
          map("count", tools.orphansCleaned())));
    }
  }

  /** A client disconnected: it follows no turn any more (the turns go on). */
  public void disconnected(Connection c) {
    Set<Following> f = following.remove(c);
    if (f != null) {
      f.forEach(x -> rooms.unobserve(x.sessionId(), x.events()));
    }
  }

  private void query(Connection c, String userId, List<JsonNode> args) {
    try {
      Payloads.AgentQuery q;
      try {
        q = Protocol.payload(args, Payloads.AgentQuery.class);
      } catch (PayloadException e) {
        throw new RequestException("bad query payload: " + e.getMessage());
      }
      if (q.prompt() == null || q.prompt().isBlank()) {
        throw new RequestException("No prompt provided");
      }
      ChatSession session = session(userId, q.session_id());
      String named = q.session_id() == null || q.session_id().isBlank() ? session.id()
          : q.session_id();
      Set<Following> mine = following.get(c);
      if (mine == null) {
        return; // disconnected meanwhile
      }
      Following[] self = new Following[1];
      AgentTurnEvents events = new AgentTurnEvents(c, q.prompt(), named, ended -> {
        rooms.unobserve(session.id(), ended);
        mine.remove(self[0]);
        emit(c, Protocol.SESSION_MEMORY, memory(session.id(), named));
        toolCount(c, userId, false);
      });
      self[0] = new Following(session.id(), events);
      mine.add(self[0]);
      rooms.observe(session.id(), events);
      String turnId;
      try {
        if (node != null) {
          node.follow(session.id()); // a turn another node runs is relayed to this node's face
        }
        turnId = dispatcher.submitAnywhere(userId,
            new Payloads.SubmitPrompt(session.id(), q.prompt(), null));
      } catch (RuntimeException e) {
        rooms.unobserve(session.id(), events);
        mine.remove(self[0]);
        throw e;
      }
      events.start(turnId);
    } catch (RequestException e) {
      emit(c, Protocol.ERROR, map("message", e.getMessage()));
    } catch (StoreException e) {
      log.warn("store failed while handling a query: {}", e.getMessage());
      emit(c, Protocol.ERROR, map("message", "the server cannot reach its store: "
          + e.getMessage()));
    } catch (RuntimeException e) {
      log.warn("handling a query from {} failed", c.id(), e);
      emit(c, Protocol.ERROR, map("message", "the server failed to handle this query"));
    }
  }

  /**
   * The user's session for {@code id}: the user's own session with that id; or the one made
   * before for that id; or, for an id the server does not know (or another user's), a new one
   * in the user's default project (their first), named after it.
   */
  private synchronized ChatSession session(String userId, String id) {
    if (id != null && !id.isBlank()) {
      ChatSession own = store.findSession(id).filter(s -> s.userId().equals(userId))
          .orElse(null);
      if (own != null) {
        return own;
      }
      for (ChatSession s : store.listSessions(userId, null)) {
        if (s.name().equals(SESSION_NAME_PREFIX + id)) {
          return s;
        }
      }
    }
    List<Project> projects = store.listProjects(userId);
    if (projects.isEmpty()) {
      throw new RequestException("you have no project yet: create one in the page, then ask "
          + "again");
    }
    String name = id == null || id.isBlank() ? "New chat" : SESSION_NAME_PREFIX + id;
    ChatSession s = new ChatSession(Ids.next(), userId, projects.get(0).id(), name, null,
        settings.clock().instant());
    store.createSession(s);
    return s;
  }

  /**
   * {@code session_memory}: the session's last messages, the prompts and the final replies (a
   * turn without one, such as a model's failure, has none: never an empty message).
   */
  private Map<String, Object> memory(String sessionId, String named) {
    List<Map<String, Object>> messages = new ArrayList<>();
    try {
      for (ChatTurn t : store.listTurns(sessionId)) {
        messages.add(map("role", "user", "content", t.prompt(), "message_index",
            messages.size(), "created_at", t.createdAt().toString()));
        String reply = t.status() == TurnStatus.PROCESSING ? "" : finalText(t);
        if (!reply.isBlank()) { // a turn that failed before its model replied has no reply
          messages.add(map("role", "assistant", "content", reply, "message_index",
              messages.size(), "created_at",
              (t.finishedAt() != null ? t.finishedAt() : t.createdAt()).toString()));
        }
      }
    } catch (StoreException e) {
      log.warn("could not read session {} for session_memory: {}", sessionId, e.getMessage());
    }
    List<Map<String, Object>> recent = messages.subList(
        Math.max(0, messages.size() - MEMORY_MESSAGES), messages.size());
    return map("session_id", named, "messages", recent);
  }

  /** The reply after the turn's last tool call (its final text), superseded blocks aside. */
  static String finalText(ChatTurn t) {
    StringBuilder sb = new StringBuilder();
    for (TurnBlock b : t.blocks()) {
      if (b instanceof TurnBlock.Tool) {
        sb.setLength(0);
      } else if (b instanceof TurnBlock.Responding r && !r.isSuperseded()) {
        sb.append(r.content());
      }
    }
    return sb.toString();
  }

  private static void emit(Connection c, String event, Object payload) {
    c.emit(event, Protocol.args(payload));
  }
}
