package dev.gadget.core.spi;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where Gadget keeps users, tokens, projects, chat sessions, turns and drone registrations.
 *
 * <p><b>Contract.</b> Implementations are thread-safe. Callers assign ids (see
 * {@link dev.gadget.core.Ids}). Every method either completes or throws {@link StoreException};
 * an unreachable database is {@link StoreException.Reason#UNAVAILABLE}, never a hang without
 * bound and never a driver exception. Lists come back in a defined order that never depends on
 * timestamp ties. A turn's blocks are written one {@link #appendBlock} at a time as they finish
 * and its end is one {@link #finalizeTurn}: an implementation must not rewrite the turn or the
 * session's history for either. {@code ChatStoreContract} in the gadget-core test-jar checks all
 * of this; every implementation extends it.
 *
 * <p>Tokens are stored as hashes only ({@link StoredToken}); see {@link dev.gadget.core.store.Tokens}
 * for issuing and checking them.
 */
public interface ChatStore extends AutoCloseable {

  /** Adds a user. {@link StoreException.Reason#DUPLICATE} if the id or username is taken. */
  void createUser(User user);

  /** The user with {@code id}. */
  Optional<User> findUser(String id);

  /** The user with {@code username}. */
  Optional<User> findUserByName(String username);

  /** Adds a token hash. {@link StoreException.Reason#NOT_FOUND} if its user does not exist. */
  void saveToken(StoredToken token);

  /** The token whose hash is {@code hash}. */
  Optional<StoredToken> findTokenByHash(String hash);

  /** Removes a token; returns whether it existed. */
  boolean deleteToken(String tokenId);

  /** Adds a project. */
  void createProject(Project project);

  /** The project with {@code id}. */
  Optional<Project> findProject(String id);

  /** The user's projects, oldest first (by id). */
  List<Project> listProjects(String userId);

  /** Adds a chat session. */
  void createSession(ChatSession session);

  /** The chat session with {@code id}. */
  Optional<ChatSession> findSession(String id);

  /** The user's chat sessions about {@code projectId} ({@code null}: all), oldest first (by id). */
  List<ChatSession> listSessions(String userId, String projectId);

  /** Records which workspace last ran the session. */
  void setSessionWorkspace(String sessionId, String workspaceId);

  /**
   * Sets the approval policy of the session's next turns ({@link ChatSession#approvalPolicy()}:
   * a wire name, or {@code null} for the server's default). One write.
   */
  void setSessionApprovalPolicy(String sessionId, String approvalPolicy);

  /**
   * Sets whether the agent may write itself tools in the session's next turns
   * ({@link ChatSession#createTools()}; {@code null}: as the drone is set).
   * {@link StoreException.Reason#NOT_FOUND} if the session does not exist.
   */
  void setSessionCreateTools(String sessionId, Boolean createTools);

  /** Adds a turn, normally with no blocks yet. One write. */
  void createTurn(ChatTurn turn);

  /** The turn with {@code id}, its blocks in {@code seq} order. */
  Optional<ChatTurn> findTurn(String id);

  /** The session's turns in {@code seq} order, each with its blocks. */
  List<ChatTurn> listTurns(String sessionId);

  /** Every turn, of any user, whose status is {@link TurnStatus#PROCESSING}. */
  List<ChatTurn> listUnfinishedTurns();

  /**
   * Appends one finished block to a turn, in one write. A tool block also adds its call to the
   * turn's tool calls. A block whose {@code seq} the turn already has is ignored, so a replay
   * after a crash is harmless. {@link StoreException.Reason#NOT_FOUND} if the turn does not exist.
   */
  void appendBlock(String turnId, TurnBlock block);

  /**
   * Adds a text ({@link TurnBlock.Thinking thinking} or {@link TurnBlock.Responding responding})
   * block to a turn, or replaces the text block the turn has with the same {@code seq}, in one
   * write: the server checkpoints the block still being streamed with it (so a crash loses at
   * most the text since the last checkpoint) and marks a block {@link TurnBlock#isSuperseded()}.
   * {@link StoreException.Reason#NOT_FOUND} if the turn does not exist.
   *
   * @throws IllegalArgumentException for a tool or diff block, or when the turn's block with this
   *     {@code seq} is a tool or diff block (those are appended once, never saved over)
   */
  void saveBlock(String turnId, TurnBlock block);

  /** Records which drone runs a turn. */
  void setTurnDrone(String turnId, String droneId);

  /**
   * Ends a turn in one atomic write, only if it is still {@link TurnStatus#PROCESSING}.
   *
   * @param status a terminal status
   * @return whether this call ended it ({@code false}: it had already ended, or does not exist)
   */
  boolean finalizeTurn(
      String turnId, TurnStatus status, TurnStats stats, String error, Instant finishedAt);

  /**
   * Fencing, for a cluster's store (docs/CLUSTER.md, "Fencing"): whether this store keeps a
   * fence per turn, so that the fenced writes below are refused to a node that lost the turn's
   * drone. A store that does not (the default) takes fenced writes as plain ones.
   */
  default boolean fencesTurns() {
    return false;
  }

  /**
   * Raises the turn's fence to {@code fence} (the fencing number of the node's lease of the
   * turn's drone), in one write: from then on the turn's fenced writes with a smaller fence are
   * refused. A node calls it when it takes a turn over, before it writes anything of it.
   *
   * @throws StoreException {@link StoreException.Reason#FENCED} when the turn holds a greater
   *     fence, {@link StoreException.Reason#NOT_FOUND} when it does not exist
   */
  default void claimTurn(String turnId, long fence) {
    if (findTurn(turnId).isEmpty()) {
      throw new StoreException(StoreException.Reason.NOT_FOUND, "chat turn " + turnId
          + " not found");
    }
  }

  /**
   * {@link #claimTurn(String, long)} by {@code holder} (the claiming node's id), strict: an
   * equal fence is taken only when this very holder claimed it, so that of two nodes that came
   * to one number (each the store's fence plus one while the cluster was away, or one of those
   * and the next number the cluster hands out) one is refused, and claims again above it. The
   * fenced writes below name no holder and take an equal fence as before. A store that keeps no
   * holders (the default) takes the fence alone, equal or not.
   *
   * @throws StoreException {@link StoreException.Reason#FENCED} when the turn holds a greater
   *     fence, or this one not claimed by {@code holder}; {@link StoreException.Reason#NOT_FOUND}
   *     when it does not exist
   */
  default void claimTurn(String turnId, long fence, String holder) {
    claimTurn(turnId, fence);
  }

  /**
   * {@link #appendBlock(String, TurnBlock)} as one write that also raises the turn's fence to
   * {@code fence}, refused ({@link StoreException.Reason#FENCED}, nothing written) when the turn
   * holds a greater one.
   */
  default void appendBlock(String turnId, TurnBlock block, long fence) {
    appendBlock(turnId, block);
  }

  /** {@link #saveBlock(String, TurnBlock)}, fenced as {@link #appendBlock(String, TurnBlock, long)}. */
  default void saveBlock(String turnId, TurnBlock block, long fence) {
    saveBlock(turnId, block);
  }

  /**
   * {@link #finalizeTurn(String, TurnStatus, TurnStats, String, Instant)}, fenced as {@link
   * #appendBlock(String, TurnBlock, long)}: a node that lost the turn cannot end it.
   */
  default boolean finalizeTurn(String turnId, TurnStatus status, TurnStats stats, String error,
      Instant finishedAt, long fence) {
    return finalizeTurn(turnId, status, stats, error, finishedAt);
  }

  /** Adds or replaces a drone registration (by id). */
  void saveDrone(DroneRegistration drone);

  /** The drone with {@code id}. */
  Optional<DroneRegistration> findDrone(String id);

  /** The user's drone registered for {@code workspaceId}. */
  Optional<DroneRegistration> findDroneByWorkspace(String userId, String workspaceId);

  /** The user's drones, oldest first (by id). */
  List<DroneRegistration> listDrones(String userId);

  /** Sets a drone's status and last-seen time. */
  void updateDroneStatus(String droneId, DroneStatus status, Instant at);

  /**
   * Users' LLM providers, the model each session chose and the usage totals: this store's
   * {@link ProviderStore}, kept with the rest of its data.
   */
  ProviderStore providers();

  /**
   * Renames a chat session.
   *
   * @throws StoreException {@link StoreException.Reason#NOT_FOUND} if there is no such session
   */
  void renameSession(String sessionId, String name);

  /**
   * Renames a project; its slug (the directory workspaces clone it to) stays.
   *
   * @throws StoreException {@link StoreException.Reason#NOT_FOUND} if there is no such project
   */
  void renameProject(String projectId, String name);

  /**
   * Deletes a chat session with its turns and their blocks. The user's usage totals stay (they
   * count what was spent, not what is kept).
   *
   * @return whether there was such a session ({@code false}: nothing was deleted)
   */
  boolean deleteSession(String sessionId);

  /**
   * Deletes a project with its chat sessions, their turns and the turns' blocks. Workspaces that
   * cloned it are the drones' and stay on their disks.
   *
   * @return whether there was such a project ({@code false}: nothing was deleted)
   */
  boolean deleteProject(String projectId);

  /** Releases the store's resources. The default does nothing. */
  @Override
  default void close() {}
}
