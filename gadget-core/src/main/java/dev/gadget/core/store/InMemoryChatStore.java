package dev.gadget.core.store;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ProviderStore;
import dev.gadget.core.store.internal.FencedTurns;
import dev.gadget.core.store.internal.IndexedState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A {@link ChatStore} in memory: for tests, for embedding, and as the reference the contract kit
 * is checked against. Everything is lost when the process ends; {@link JournaledChatStore} keeps
 * the same structure on disk. Every call looks its data up by key or index, so its cost does not
 * grow with the number of users, sessions or turns stored. Thread-safe (one lock).
 *
 * <p>It {@linkplain #fencesTurns() fences} turns: each turn's fence is kept in memory beside it
 * (and dropped with its session or project), so the fenced writes of a node that lost a turn are
 * refused as a cluster's store refuses them.
 */
public final class InMemoryChatStore implements ChatStore, ProviderStore {
  private final IndexedState state = new IndexedState();
  private final FencedTurns fenced = new FencedTurns(state);

  @Override
  public synchronized void createUser(User user) {
    state.apply(state.checkCreateUser(user));
  }

  @Override
  public synchronized Optional<User> findUser(String id) {
    return state.findUser(id);
  }

  @Override
  public synchronized Optional<User> findUserByName(String username) {
    return state.findUserByName(username);
  }

  @Override
  public synchronized void saveToken(StoredToken token) {
    state.apply(state.checkSaveToken(token));
  }

  @Override
  public synchronized Optional<StoredToken> findTokenByHash(String hash) {
    return state.findTokenByHash(hash);
  }

  @Override
  public synchronized boolean deleteToken(String tokenId) {
    return state.apply(state.checkDeleteToken(tokenId));
  }

  @Override
  public synchronized void createProject(Project project) {
    state.apply(state.checkCreateProject(project));
  }

  @Override
  public synchronized Optional<Project> findProject(String id) {
    return state.findProject(id);
  }

  @Override
  public synchronized List<Project> listProjects(String userId) {
    return state.listProjects(userId);
  }

  @Override
  public synchronized void createSession(ChatSession session) {
    state.apply(state.checkCreateSession(session));
  }

  @Override
  public synchronized Optional<ChatSession> findSession(String id) {
    return state.findSession(id);
  }

  @Override
  public synchronized List<ChatSession> listSessions(String userId, String projectId) {
    return state.listSessions(userId, projectId);
  }

  @Override
  public synchronized void setSessionWorkspace(String sessionId, String workspaceId) {
    state.apply(state.checkSetSessionWorkspace(sessionId, workspaceId));
  }

  @Override
  public synchronized void setSessionApprovalPolicy(String sessionId, String approvalPolicy) {
    state.apply(state.checkSetSessionApprovalPolicy(sessionId, approvalPolicy));
  }

  @Override
  public synchronized void setSessionCreateTools(String sessionId, Boolean createTools) {
    state.apply(state.checkSetSessionCreateTools(sessionId, createTools));
  }

  @Override
  public synchronized void renameSession(String sessionId, String name) {
    state.apply(state.checkRenameSession(sessionId, name));
  }

  @Override
  public synchronized void renameProject(String projectId, String name) {
    state.apply(state.checkRenameProject(projectId, name));
  }

  @Override
  public synchronized boolean deleteSession(String sessionId) {
    return fenced.deleteSession(sessionId);
  }

  @Override
  public synchronized boolean deleteProject(String projectId) {
    return fenced.deleteProject(projectId);
  }

  @Override
  public synchronized void createTurn(ChatTurn turn) {
    state.apply(state.checkCreateTurn(turn));
  }

  @Override
  public synchronized Optional<ChatTurn> findTurn(String id) {
    return state.findTurn(id);
  }

  @Override
  public synchronized List<ChatTurn> listTurns(String sessionId) {
    return state.listTurns(sessionId);
  }

  @Override
  public synchronized List<ChatTurn> listUnfinishedTurns() {
    return state.listUnfinishedTurns();
  }

  @Override
  public synchronized void appendBlock(String turnId, TurnBlock block) {
    state.apply(state.checkAppendBlock(turnId, block));
  }

  @Override
  public synchronized void saveBlock(String turnId, TurnBlock block) {
    state.apply(state.checkSaveBlock(turnId, block));
  }

  @Override
  public synchronized void setTurnDrone(String turnId, String droneId) {
    state.apply(state.checkSetTurnDrone(turnId, droneId));
  }

  @Override
  public synchronized boolean finalizeTurn(
      String turnId, TurnStatus status, TurnStats stats, String error, Instant finishedAt) {
    return state.apply(state.checkFinalizeTurn(turnId, status, stats, error, finishedAt));
  }

  /** {@inheritDoc} Yes: the fences are kept in memory with the turns. */
  @Override
  public boolean fencesTurns() {
    return true;
  }

  @Override
  public synchronized void claimTurn(String turnId, long fence) {
    fenced.claimTurn(turnId, fence);
  }

  @Override
  public synchronized void claimTurn(String turnId, long fence, String holder) {
    fenced.claimTurn(turnId, fence, holder);
  }

  @Override
  public synchronized void appendBlock(String turnId, TurnBlock block, long fence) {
    fenced.appendBlock(turnId, block, fence);
  }

  @Override
  public synchronized void saveBlock(String turnId, TurnBlock block, long fence) {
    fenced.saveBlock(turnId, block, fence);
  }

  @Override
  public synchronized boolean finalizeTurn(String turnId, TurnStatus status, TurnStats stats,
      String error, Instant finishedAt, long fence) {
    return fenced.finalizeTurn(turnId, status, stats, error, finishedAt, fence);
  }

  @Override
  public synchronized void saveDrone(DroneRegistration drone) {
    state.apply(state.drones().checkSave(drone));
  }

  @Override
  public synchronized Optional<DroneRegistration> findDrone(String id) {
    return state.drones().findDrone(id);
  }

  @Override
  public synchronized Optional<DroneRegistration> findDroneByWorkspace(
      String userId, String workspaceId) {
    return state.drones().findDroneByWorkspace(userId, workspaceId);
  }

  @Override
  public synchronized List<DroneRegistration> listDrones(String userId) {
    return state.drones().listDrones(userId);
  }

  @Override
  public synchronized void updateDroneStatus(String droneId, DroneStatus status, Instant at) {
    state.apply(state.drones().checkUpdateStatus(droneId, status, at));
  }

  // ---------------------------------------------------- providers, models and usage totals

  @Override
  public ProviderStore providers() {
    return this;
  }

  @Override
  public synchronized void saveProvider(ModelProvider provider) {
    state.apply(state.checkSaveProvider(provider));
  }

  @Override
  public synchronized Optional<ModelProvider> findProvider(String id) {
    return state.providers().findProvider(id);
  }

  @Override
  public synchronized List<ModelProvider> listProviders(String userId) {
    return state.providers().listProviders(userId);
  }

  @Override
  public synchronized boolean deleteProvider(String id) {
    return state.apply(state.checkDeleteProvider(id));
  }

  @Override
  public synchronized void setSessionModel(String sessionId, String providerId, String modelId) {
    state.apply(state.checkSetSessionModel(sessionId, providerId, modelId));
  }

  @Override
  public synchronized void setSessionSampling(String sessionId, Sampling sampling) {
    state.apply(state.checkSetSessionSampling(sessionId, sampling));
  }

  @Override
  public synchronized void setSessionToolDeferral(String sessionId, String toolDeferral) {
    state.apply(state.checkSetSessionToolDeferral(sessionId, toolDeferral));
  }

  @Override
  public synchronized void addUsage(UsageTotal turnUsage) {
    state.apply(state.checkAddUsage(turnUsage));
  }

  @Override
  public synchronized List<UsageTotal> listUsage(String userId) {
    return state.providers().listUsage(userId);
  }
}
