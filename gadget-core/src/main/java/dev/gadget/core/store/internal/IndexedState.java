package dev.gadget.core.store.internal;

import static dev.gadget.core.store.internal.Indexes.index;
import static dev.gadget.core.store.internal.Indexes.key;
import static dev.gadget.core.store.internal.Indexes.resolve;
import static dev.gadget.core.store.internal.Indexes.unindex;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a store holds, in memory, with an index for every lookup the {@code ChatStore} SPI
 * makes, so that no call scans more than what it returns: users by id and by name, tokens by
 * hash, projects and sessions by user (and project), turns by session in {@code seq} order and
 * the unfinished ones, drones by user and by workspace ({@link DroneState}). Not thread-safe:
 * its store holds a lock.
 *
 * <p>A write is two steps: a {@code check…} method checks it against the state and returns the
 * {@link Change} it makes ({@code null}: nothing to change), or throws {@link StoreException};
 * then {@link #apply} applies it. In between, a journaled store writes the change to its journal.
 */
public final class IndexedState {
  private final Map<String, User> users = new HashMap<>();
  private final Map<String, String> userIdByName = new HashMap<>();
  private final Map<String, StoredToken> tokens = new HashMap<>();
  private final Map<String, String> tokenIdByHash = new HashMap<>();
  private final Map<String, Project> projects = new HashMap<>();
  private final Map<String, NavigableSet<String>> projectsByUser = new HashMap<>();
  private final Map<String, ChatSession> sessions = new HashMap<>();
  private final Map<String, NavigableSet<String>> sessionsByUser = new HashMap<>();
  private final Map<String, NavigableSet<String>> sessionsByProject = new HashMap<>();
  private final TurnTable turns;
  private final DroneState drones = new DroneState();
  private final ProviderState providers = new ProviderState();

  /** A state with every turn in memory. */
  public IndexedState() {
    this(new MemoryTurns());
  }

  /** A state whose turns are kept by {@code turns}. */
  IndexedState(TurnTable turns) {
    this.turns = turns;
  }

  // ------------------------------------------------------------------ reads

  public Optional<User> findUser(String id) {
    return Optional.ofNullable(users.get(id));
  }

  public Optional<User> findUserByName(String username) {
    return Optional.ofNullable(userIdByName.get(username)).map(users::get);
  }

  public Optional<StoredToken> findTokenByHash(String hash) {
    return Optional.ofNullable(tokenIdByHash.get(hash)).map(tokens::get);
  }

  public Optional<Project> findProject(String id) {
    return Optional.ofNullable(projects.get(id));
  }

  public List<Project> listProjects(String userId) {
    return resolve(projectsByUser.get(userId), projects::get);
  }

  public Optional<ChatSession> findSession(String id) {
    return Optional.ofNullable(sessions.get(id));
  }

  public List<ChatSession> listSessions(String userId, String projectId) {
    NavigableSet<String> ids = projectId == null
        ? sessionsByUser.get(userId)
        : sessionsByProject.get(key(userId, projectId));
    return resolve(ids, sessions::get);
  }

  public Optional<ChatTurn> findTurn(String id) {
    return Optional.ofNullable(turns.get(id));
  }

  public List<ChatTurn> listTurns(String sessionId) {
    return turns.listSession(sessionId);
  }

  public List<ChatTurn> listUnfinishedTurns() {
    return turns.unfinished();
  }

  /** The session of a turn, or null if there is no such turn (read nothing from disk). */
  public String sessionOfTurn(String turnId) {
    return turnId == null ? null : turns.sessionOf(turnId);
  }

  /**
   * The change as a store that keeps finished turns whole on disk journals it: a change that
   * ends a turn, or changes one that has ended, becomes the whole turn as it leaves it (one
   * {@link Change.CreateTurn} record holding its blocks: where the finished turn is read from).
   */
  public Change wholeTurns(Change change) {
    if (change instanceof Change.TurnChange c) {
      ChatTurn after = c.applyToTurn(turn(c.turnId()));
      if (after.status().isTerminal()) {
        return new Change.CreateTurn(after);
      }
    }
    return change;
  }

  /** Users' drones. */
  public DroneState drones() {
    return drones;
  }

  /** Every entity as the changes that recreate it, users before what refers to them. */
  public List<Change> snapshot() {
    List<Change> out = new ArrayList<>(users.size() + tokens.size() + projects.size()
        + sessions.size() + turns.size() + drones.size());
    users.values().forEach(u -> out.add(new Change.CreateUser(u)));
    tokens.values().forEach(t -> out.add(new Change.SaveToken(t)));
    projects.values().forEach(p -> out.add(new Change.CreateProject(p)));
    sessions.values().forEach(s -> out.add(new Change.CreateSession(s)));
    turns.snapshotInto(out);
    drones.snapshotInto(out);
    providers.snapshotInto(out);
    return out;
  }

  /** For people: how much the state holds. */
  public String summary() {
    return users.size() + " users, " + projects.size() + " projects, " + sessions.size()
        + " sessions, " + turns.size() + " turns";
  }

  // ------------------------------------------------------------------ checks

  public Change checkCreateUser(User user) {
    Objects.requireNonNull(user, "user");
    if (users.containsKey(user.id()) || userIdByName.containsKey(user.username())) {
      throw duplicate("user " + user.username());
    }
    return new Change.CreateUser(user);
  }

  public Change checkSaveToken(StoredToken token) {
    Objects.requireNonNull(token, "token");
    if (!users.containsKey(token.userId())) {
      throw notFound("user " + token.userId());
    }
    if (tokens.containsKey(token.id()) || tokenIdByHash.containsKey(token.hash())) {
      throw duplicate("token " + token.id());
    }
    return new Change.SaveToken(token);
  }

  /** {@code null} if there is no such token. */
  public Change checkDeleteToken(String tokenId) {
    return tokens.containsKey(tokenId) ? new Change.DeleteToken(tokenId) : null;
  }

  public Change checkCreateProject(Project project) {
    Objects.requireNonNull(project, "project");
    if (projects.containsKey(project.id())) {
      throw duplicate("project " + project.id());
    }
    return new Change.CreateProject(project);
  }

  public Change checkCreateSession(ChatSession session) {
    Objects.requireNonNull(session, "session");
    if (sessions.containsKey(session.id())) {
      throw duplicate("chat session " + session.id());
    }
    return new Change.CreateSession(session);
  }

  public Change checkSetSessionWorkspace(String sessionId, String workspaceId) {
    requireSession(sessionId);
    return new Change.SetSessionWorkspace(sessionId, workspaceId);
  }

  public Change checkRenameSession(String sessionId, String name) {
    Objects.requireNonNull(name, "name");
    requireSession(sessionId);
    return new Change.RenameSession(sessionId, name);
  }

  public Change checkRenameProject(String projectId, String name) {
    Objects.requireNonNull(name, "name");
    if (projectId == null || !projects.containsKey(projectId)) {
      throw notFound("project " + projectId);
    }
    return new Change.RenameProject(projectId, name);
  }

  /** {@code null} if there is no such session. */
  public Change checkDeleteSession(String sessionId) {
    return sessionId != null && sessions.containsKey(sessionId)
        ? new Change.DeleteSession(sessionId) : null;
  }

  /** {@code null} if there is no such project. */
  public Change checkDeleteProject(String projectId) {
    return projectId != null && projects.containsKey(projectId)
        ? new Change.DeleteProject(projectId) : null;
  }

  /** Users' providers and usage totals. */
  public ProviderState providers() {
    return providers;
  }

  public Change checkSaveProvider(ModelProvider provider) {
    return providers.checkSave(provider, provider != null && users.containsKey(provider.userId()));
  }

  /** {@code null} if there is no such provider. */
  public Change checkDeleteProvider(String providerId) {
    return providers.checkDelete(providerId);
  }

  public Change checkSetSessionModel(String sessionId, String providerId, String modelId) {
    requireSession(sessionId);
    return new Change.SetSessionModel(sessionId, providerId, modelId);
  }

  public Change checkSetSessionSampling(String sessionId, Sampling sampling) {
    requireSession(sessionId);
    return new Change.SetSessionSampling(sessionId, Sampling.orNull(sampling));
  }

  public Change checkSetSessionApprovalPolicy(String sessionId, String approvalPolicy) {
    requireSession(sessionId);
    return new Change.SetSessionApprovalPolicy(sessionId, approvalPolicy);
  }

  public Change checkSetSessionCreateTools(String sessionId, Boolean createTools) {
    requireSession(sessionId);
    return new Change.SetSessionCreateTools(sessionId, createTools);
  }

  private void requireSession(String sessionId) {
    if (sessionId == null || !sessions.containsKey(sessionId)) {
      throw notFound("chat session " + sessionId);
    }
  }

  public Change checkSetSessionToolDeferral(String sessionId, String toolDeferral) {
    requireSession(sessionId);
    return new Change.SetSessionToolDeferral(sessionId, toolDeferral);
  }

  public Change checkAddUsage(UsageTotal usage) {
    return new Change.AddUsage(Objects.requireNonNull(usage, "usage"));
  }

  public Change checkCreateTurn(ChatTurn turn) {
    Objects.requireNonNull(turn, "turn");
    if (turns.contains(turn.id())) {
      throw duplicate("chat turn " + turn.id());
    }
    return new Change.CreateTurn(turn);
  }

  /** {@code null} if the turn already has a block with this {@code seq} (a replay). */
  public Change checkAppendBlock(String turnId, TurnBlock block) {
    Objects.requireNonNull(block, "block");
    return Turns.hasBlock(existingTurn(turnId), block.seq())
        ? null
        : new Change.AppendBlock(turnId, block);
  }

  /** A change that adds or replaces a text block; refuses a tool block on either side. */
  public Change checkSaveBlock(String turnId, TurnBlock block) {
    Turns.requireSavable(Objects.requireNonNull(block, "block"));
    TurnBlock there = Turns.block(existingTurn(turnId), block.seq());
    if (there instanceof TurnBlock.Tool || there instanceof TurnBlock.Diff) {
      throw new IllegalArgumentException("block " + block.seq() + " of turn " + turnId
          + " is a " + there.mode() + " block");
    }
    return new Change.SaveBlock(turnId, block);
  }

  public Change checkSetTurnDrone(String turnId, String droneId) {
    existingTurn(turnId);
    return new Change.SetTurnDrone(turnId, droneId);
  }

  /** {@code null} if the turn does not exist or has already ended. */
  public Change checkFinalizeTurn(
      String turnId, TurnStatus status, TurnStats stats, String error, Instant finishedAt) {
    if (!Objects.requireNonNull(status, "status").isTerminal()) {
      throw new IllegalArgumentException("not a terminal status: " + status);
    }
    Objects.requireNonNull(finishedAt, "finishedAt");
    if (turnId == null || !turns.running(turnId)) {
      return null;
    }
    return new Change.FinalizeTurn(turnId, status, stats, error, finishedAt);
  }

  // ------------------------------------------------------------------ applying

  /**
   * Applies a checked change; {@code null} does nothing.
   *
   * @return whether there was a change
   */
  public boolean apply(Change change) {
    if (change == null) {
      return false;
    }
    change.applyTo(this);
    return true;
  }

  void putUser(User u) {
    User old = users.put(u.id(), u);
    if (old != null) {
      userIdByName.remove(old.username());
    }
    userIdByName.put(u.username(), u.id());
  }

  void putToken(StoredToken t) {
    removeToken(t.id());
    tokens.put(t.id(), t);
    tokenIdByHash.put(t.hash(), t.id());
  }

  void removeToken(String tokenId) {
    StoredToken old = tokens.remove(tokenId);
    if (old != null) {
      tokenIdByHash.remove(old.hash());
    }
  }

  void putProject(Project p) {
    Project old = projects.put(p.id(), p);
    if (old != null) {
      unindex(projectsByUser, old.userId(), old.id());
    }
    index(projectsByUser, p.userId(), p.id());
  }

  void putSession(ChatSession s) {
    ChatSession old = sessions.put(s.id(), s);
    if (old != null) {
      unindex(sessionsByUser, old.userId(), old.id());
      unindex(sessionsByProject, key(old.userId(), old.projectId()), old.id());
    }
    index(sessionsByUser, s.userId(), s.id());
    index(sessionsByProject, key(s.userId(), s.projectId()), s.id());
  }

  /** Removes a session with its turns (and so their blocks). */
  void removeSession(String sessionId) {
    ChatSession old = sessions.remove(sessionId);
    if (old == null) {
      return;
    }
    unindex(sessionsByUser, old.userId(), old.id());
    unindex(sessionsByProject, key(old.userId(), old.projectId()), old.id());
    turns.removeSession(sessionId);
  }

  /** Removes a project with its sessions and their turns. */
  void removeProject(String projectId) {
    Project old = projects.remove(projectId);
    if (old == null) {
      return;
    }
    unindex(projectsByUser, old.userId(), old.id());
    NavigableSet<String> ids = sessionsByProject.get(key(old.userId(), old.id()));
    for (String id : ids == null ? List.<String>of() : List.copyOf(ids)) {
      removeSession(id);
    }
  }

  void putTurn(ChatTurn t) {
    turns.put(t);
  }

  Project project(String id) {
    return existing(projects.get(id), "project", id);
  }

  /** The session with {@code id}; a change refers only to sessions that exist. */
  ChatSession session(String id) {
    return existing(sessions.get(id), "chat session", id);
  }

  ChatTurn turn(String id) {
    return existing(turns.get(id), "chat turn", id);
  }

  // ------------------------------------------------------------------ helpers

  private ChatTurn existingTurn(String turnId) {
    ChatTurn t = turnId == null ? null : turns.get(turnId);
    if (t == null) {
      throw notFound("chat turn " + turnId);
    }
    return t;
  }

  private static <T> T existing(T value, String kind, String id) {
    if (value == null) {
      throw new IllegalStateException("the " + kind + " " + id + " does not exist");
    }
    return value;
  }

  private static StoreException notFound(String what) {
    return new StoreException(StoreException.Reason.NOT_FOUND, what + " not found");
  }

  private static StoreException duplicate(String what) {
    return new StoreException(StoreException.Reason.DUPLICATE, what + " already exists");
  }
}
