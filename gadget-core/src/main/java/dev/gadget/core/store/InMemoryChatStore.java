package dev.gadget.core.store;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A {@link ChatStore} in memory: for tests, for embedding, and as the reference the contract kit
 * is checked against. Everything is lost when the process ends. Thread-safe (one lock).
 */
public final class InMemoryChatStore implements ChatStore {
  private final Map<String, User> users = new HashMap<>();
  private final Map<String, StoredToken> tokens = new HashMap<>();
  private final Map<String, Project> projects = new TreeMap<>();
  private final Map<String, ChatSession> sessions = new TreeMap<>();
  private final Map<String, ChatTurn> turns = new HashMap<>();
  private final Map<String, DroneRegistration> drones = new TreeMap<>();

  @Override
  public synchronized void createUser(User user) {
    Objects.requireNonNull(user, "user");
    if (users.containsKey(user.id())
        || users.values().stream().anyMatch(u -> u.username().equals(user.username()))) {
      throw duplicate("user " + user.username());
    }
    users.put(user.id(), user);
  }

  @Override
  public synchronized Optional<User> findUser(String id) {
    return Optional.ofNullable(users.get(id));
  }

  @Override
  public synchronized Optional<User> findUserByName(String username) {
    return users.values().stream().filter(u -> u.username().equals(username)).findFirst();
  }

  @Override
  public synchronized void saveToken(StoredToken token) {
    Objects.requireNonNull(token, "token");
    if (!users.containsKey(token.userId())) {
      throw notFound("user " + token.userId());
    }
    if (tokens.containsKey(token.id())
        || tokens.values().stream().anyMatch(t -> t.hash().equals(token.hash()))) {
      throw duplicate("token " + token.id());
    }
    tokens.put(token.id(), token);
  }

  @Override
  public synchronized Optional<StoredToken> findTokenByHash(String hash) {
    return tokens.values().stream().filter(t -> t.hash().equals(hash)).findFirst();
  }

  @Override
  public synchronized boolean deleteToken(String tokenId) {
    return tokens.remove(tokenId) != null;
  }

  @Override
  public synchronized void createProject(Project project) {
    Objects.requireNonNull(project, "project");
    if (projects.putIfAbsent(project.id(), project) != null) {
      throw duplicate("project " + project.id());
    }
  }

  @Override
  public synchronized Optional<Project> findProject(String id) {
    return Optional.ofNullable(projects.get(id));
  }

  @Override
  public synchronized List<Project> listProjects(String userId) {
    return filter(projects, p -> p.userId().equals(userId));
  }

  @Override
  public synchronized void createSession(ChatSession session) {
    Objects.requireNonNull(session, "session");
    if (sessions.putIfAbsent(session.id(), session) != null) {
      throw duplicate("chat session " + session.id());
    }
  }

  @Override
  public synchronized Optional<ChatSession> findSession(String id) {
    return Optional.ofNullable(sessions.get(id));
  }

  @Override
  public synchronized List<ChatSession> listSessions(String userId, String projectId) {
    return filter(sessions,
        s -> s.userId().equals(userId) && (projectId == null || s.projectId().equals(projectId)));
  }

  @Override
  public synchronized void setSessionWorkspace(String sessionId, String workspaceId) {
    ChatSession s = sessions.get(sessionId);
    if (s == null) {
      throw notFound("chat session " + sessionId);
    }
    sessions.put(sessionId, s.withWorkspaceId(workspaceId));
  }

  @Override
  public synchronized void createTurn(ChatTurn turn) {
    Objects.requireNonNull(turn, "turn");
    if (turns.putIfAbsent(turn.id(), turn) != null) {
      throw duplicate("chat turn " + turn.id());
    }
  }

  @Override
  public synchronized Optional<ChatTurn> findTurn(String id) {
    return Optional.ofNullable(turns.get(id));
  }

  @Override
  public synchronized List<ChatTurn> listTurns(String sessionId) {
    List<ChatTurn> out = new ArrayList<>();
    for (ChatTurn t : turns.values()) {
      if (t.sessionId().equals(sessionId)) {
        out.add(t);
      }
    }
    out.sort(Comparator.comparingLong(ChatTurn::seq).thenComparing(ChatTurn::id));
    return out;
  }

  @Override
  public synchronized List<ChatTurn> listUnfinishedTurns() {
    List<ChatTurn> out = new ArrayList<>();
    for (ChatTurn t : turns.values()) {
      if (t.status() == TurnStatus.PROCESSING) {
        out.add(t);
      }
    }
    out.sort(Comparator.comparing(ChatTurn::id));
    return out;
  }

  @Override
  public synchronized void appendBlock(String turnId, TurnBlock block) {
    Objects.requireNonNull(block, "block");
    ChatTurn t = turn(turnId);
    if (t.blocks().stream().anyMatch(b -> b.seq() == block.seq())) {
      return;
    }
    List<TurnBlock> blocks = new ArrayList<>(t.blocks());
    blocks.add(block);
    blocks.sort(Comparator.comparingInt(TurnBlock::seq));
    List<ToolCall> calls = t.toolCalls();
    if (block instanceof TurnBlock.Tool tool) {
      calls = new ArrayList<>(calls);
      calls.add(tool.content());
    }
    turns.put(turnId, new ChatTurn(t.id(), t.sessionId(), t.userId(), t.seq(), t.status(),
        t.prompt(), t.mode(), blocks, calls, t.stats(), t.createdAt(), t.finishedAt(), t.error(),
        t.droneId()));
  }

  @Override
  public synchronized void setTurnDrone(String turnId, String droneId) {
    ChatTurn t = turn(turnId);
    turns.put(turnId, new ChatTurn(t.id(), t.sessionId(), t.userId(), t.seq(), t.status(),
        t.prompt(), t.mode(), t.blocks(), t.toolCalls(), t.stats(), t.createdAt(),
        t.finishedAt(), t.error(), droneId));
  }

  @Override
  public synchronized boolean finalizeTurn(
      String turnId, TurnStatus status, TurnStats stats, String error, Instant finishedAt) {
    if (!Objects.requireNonNull(status, "status").isTerminal()) {
      throw new IllegalArgumentException("not a terminal status: " + status);
    }
    ChatTurn t = turns.get(turnId);
    if (t == null || t.status().isTerminal()) {
      return false;
    }
    turns.put(turnId, new ChatTurn(t.id(), t.sessionId(), t.userId(), t.seq(), status,
        t.prompt(), t.mode(), t.blocks(), t.toolCalls(), stats == null ? t.stats() : stats,
        t.createdAt(), Objects.requireNonNull(finishedAt, "finishedAt"), error, t.droneId()));
    return true;
  }

  @Override
  public synchronized void saveDrone(DroneRegistration drone) {
    Objects.requireNonNull(drone, "drone");
    drones.put(drone.id(), drone);
  }

  @Override
  public synchronized Optional<DroneRegistration> findDrone(String id) {
    return Optional.ofNullable(drones.get(id));
  }

  @Override
  public synchronized Optional<DroneRegistration> findDroneByWorkspace(
      String userId, String workspaceId) {
    return drones.values().stream()
        .filter(d -> d.userId().equals(userId) && d.workspaceId().equals(workspaceId))
        .findFirst();
  }

  @Override
  public synchronized List<DroneRegistration> listDrones(String userId) {
    return filter(drones, d -> d.userId().equals(userId));
  }

  @Override
  public synchronized void updateDroneStatus(String droneId, DroneStatus status, Instant at) {
    DroneRegistration d = drones.get(droneId);
    if (d == null) {
      throw notFound("drone " + droneId);
    }
    drones.put(droneId, d.withStatus(status, at));
  }

  private ChatTurn turn(String turnId) {
    ChatTurn t = turns.get(turnId);
    if (t == null) {
      throw notFound("chat turn " + turnId);
    }
    return t;
  }

  private static <T> List<T> filter(Map<String, T> sorted, Predicate<T> keep) {
    List<T> out = new ArrayList<>();
    for (T v : sorted.values()) {
      if (keep.test(v)) {
        out.add(v);
      }
    }
    return out;
  }

  private static StoreException notFound(String what) {
    return new StoreException(StoreException.Reason.NOT_FOUND, what + " not found");
  }

  private static StoreException duplicate(String what) {
    return new StoreException(StoreException.Reason.DUPLICATE, what + " already exists");
  }
}
