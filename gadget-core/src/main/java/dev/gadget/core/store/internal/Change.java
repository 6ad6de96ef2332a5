package dev.gadget.core.store.internal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.model.User;
import java.time.Instant;
import java.util.Objects;

/**
 * One write that changed a store, already checked against its state: what
 * {@link IndexedState#apply} applies and what the journal keeps, one JSON record each
 * ({@code {"op": "appendBlock", "turnId": …, "block": {…}}}). Applying a change never fails, so
 * replaying a journal gives back exactly the state that wrote it.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "op")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Change.CreateUser.class, name = "createUser"),
  @JsonSubTypes.Type(value = Change.SaveToken.class, name = "saveToken"),
  @JsonSubTypes.Type(value = Change.DeleteToken.class, name = "deleteToken"),
  @JsonSubTypes.Type(value = Change.CreateProject.class, name = "createProject"),
  @JsonSubTypes.Type(value = Change.CreateSession.class, name = "createSession"),
  @JsonSubTypes.Type(value = Change.SetSessionWorkspace.class, name = "setSessionWorkspace"),
  @JsonSubTypes.Type(value = Change.CreateTurn.class, name = "createTurn"),
  @JsonSubTypes.Type(value = Change.AppendBlock.class, name = "appendBlock"),
  @JsonSubTypes.Type(value = Change.SetTurnDrone.class, name = "setTurnDrone"),
  @JsonSubTypes.Type(value = Change.FinalizeTurn.class, name = "finalizeTurn"),
  @JsonSubTypes.Type(value = Change.SaveDrone.class, name = "saveDrone"),
  @JsonSubTypes.Type(value = Change.UpdateDroneStatus.class, name = "updateDroneStatus"),
  @JsonSubTypes.Type(value = Change.SaveBlock.class, name = "saveBlock"),
  @JsonSubTypes.Type(value = Change.SaveProvider.class, name = "saveProvider"),
  @JsonSubTypes.Type(value = Change.DeleteProvider.class, name = "deleteProvider"),
  @JsonSubTypes.Type(value = Change.SetSessionModel.class, name = "setSessionModel"),
  @JsonSubTypes.Type(value = Change.SetSessionSampling.class, name = "setSessionSampling"),
  @JsonSubTypes.Type(value = Change.SetSessionApprovalPolicy.class,
      name = "setSessionApprovalPolicy"),
  @JsonSubTypes.Type(value = Change.SetSessionToolDeferral.class,
      name = "setSessionToolDeferral"),
  @JsonSubTypes.Type(value = Change.SetSessionCreateTools.class, name = "setSessionCreateTools"),
  @JsonSubTypes.Type(value = Change.AddUsage.class, name = "addUsage"),
  @JsonSubTypes.Type(value = Change.RenameSession.class, name = "renameSession"),
  @JsonSubTypes.Type(value = Change.RenameProject.class, name = "renameProject"),
  @JsonSubTypes.Type(value = Change.DeleteSession.class, name = "deleteSession"),
  @JsonSubTypes.Type(value = Change.DeleteProject.class, name = "deleteProject")
})
public sealed interface Change {
  /** Applies this change to {@code state}, which must have been checked to accept it. */
  void applyTo(IndexedState state);

  /** A change to one turn that exists: a new version of it, computed from the one before. */
  sealed interface TurnChange extends Change {
    /** The turn changed. */
    String turnId();

    /** The turn as this change leaves {@code t}. */
    ChatTurn applyToTurn(ChatTurn t);

    @Override
    default void applyTo(IndexedState state) {
      state.putTurn(applyToTurn(state.turn(turnId())));
    }
  }

  /** Adds a user. */
  record CreateUser(User user) implements Change {
    public CreateUser {
      Objects.requireNonNull(user, "user");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putUser(user);
    }
  }

  /** Adds a token hash. */
  record SaveToken(StoredToken token) implements Change {
    public SaveToken {
      Objects.requireNonNull(token, "token");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putToken(token);
    }
  }

  /** Removes a token. */
  record DeleteToken(String tokenId) implements Change {
    public DeleteToken {
      Objects.requireNonNull(tokenId, "tokenId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.removeToken(tokenId);
    }
  }

  /** Adds a project. */
  record CreateProject(Project project) implements Change {
    public CreateProject {
      Objects.requireNonNull(project, "project");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putProject(project);
    }
  }

  /** Adds a chat session, or (in a snapshot) restores one as it was. */
  record CreateSession(ChatSession session) implements Change {
    public CreateSession {
      Objects.requireNonNull(session, "session");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putSession(session);
    }
  }

  /** Records which workspace last ran a session ({@code null}: none). */
  record SetSessionWorkspace(String sessionId, String workspaceId) implements Change {
    public SetSessionWorkspace {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putSession(state.session(sessionId).withWorkspaceId(workspaceId));
    }
  }

  /** Adds a turn, or (in a snapshot) restores one with its blocks and status. */
  record CreateTurn(ChatTurn turn) implements Change {
    public CreateTurn {
      Objects.requireNonNull(turn, "turn");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putTurn(turn);
    }
  }

  /** Adds one block, whose {@code seq} the turn does not have yet, to a turn. */
  record AppendBlock(String turnId, TurnBlock block) implements TurnChange {
    public AppendBlock {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(block, "block");
    }

    @Override
    public ChatTurn applyToTurn(ChatTurn t) {
      return Turns.withBlock(t, block);
    }
  }

  /** Adds a text block, or replaces the one with its seq. */
  record SaveBlock(String turnId, TurnBlock block) implements TurnChange {
    public SaveBlock {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(block, "block");
    }

    @Override
    public ChatTurn applyToTurn(ChatTurn t) {
      return Turns.withSavedBlock(t, block);
    }
  }

  /** Records which drone runs a turn. */
  record SetTurnDrone(String turnId, String droneId) implements TurnChange {
    public SetTurnDrone {
      Objects.requireNonNull(turnId, "turnId");
    }

    @Override
    public ChatTurn applyToTurn(ChatTurn t) {
      return t.withDrone(droneId);
    }
  }

  /** Ends a turn that was still processing. */
  record FinalizeTurn(String turnId, TurnStatus status, TurnStats stats, String error,
      Instant finishedAt) implements TurnChange {
    public FinalizeTurn {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(finishedAt, "finishedAt");
    }

    @Override
    public ChatTurn applyToTurn(ChatTurn t) {
      return Turns.finished(t, status, stats, error, finishedAt);
    }
  }

  /** Adds or replaces a drone registration. */
  record SaveDrone(DroneRegistration drone) implements Change {
    public SaveDrone {
      Objects.requireNonNull(drone, "drone");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.drones().put(drone);
    }
  }

  /** Sets a drone's status and last-seen time. */
  record UpdateDroneStatus(String droneId, DroneStatus status, Instant at) implements Change {
    public UpdateDroneStatus {
      Objects.requireNonNull(droneId, "droneId");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(at, "at");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.drones().put(state.drones().drone(droneId).withStatus(status, at));
    }
  }

  // ---------------------------------------------------- providers, models and usage totals

  /** Adds or replaces a user's provider (its API key sealed). */
  record SaveProvider(ModelProvider provider) implements Change {
    public SaveProvider {
      Objects.requireNonNull(provider, "provider");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.providers().put(provider);
    }
  }

  /** Removes a provider. */
  record DeleteProvider(String providerId) implements Change {
    public DeleteProvider {
      Objects.requireNonNull(providerId, "providerId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.providers().remove(providerId);
    }
  }

  /** Sets the provider and model of a session's next turns ({@code null}s: the default). */
  record SetSessionModel(String sessionId, String providerId, String modelId) implements Change {
    public SetSessionModel {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putSession(state.session(sessionId).withModel(providerId, modelId));
    }
  }

  /** Sets how a session's next turns sample ({@code null}: its provider's). */
  record SetSessionSampling(String sessionId, Sampling sampling) implements Change {
    public SetSessionSampling {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putSession(state.session(sessionId).withSampling(sampling));
    }
  }

  /** Sets a session's approval policy ({@code null}: the server's default). */
  record SetSessionApprovalPolicy(String sessionId, String approvalPolicy) implements Change {
    public SetSessionApprovalPolicy {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putSession(state.session(sessionId).withApprovalPolicy(approvalPolicy));
    }
  }

  /** Sets whether a session's next turns may write tools ({@code null}: as the drone is set). */
  record SetSessionCreateTools(String sessionId, Boolean createTools) implements Change {
    public SetSessionCreateTools {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putSession(state.session(sessionId).withCreateTools(createTools));
    }
  }

  /** Sets when a session's next turns defer tools ({@code null}: as the drone is set). */
  record SetSessionToolDeferral(String sessionId, String toolDeferral) implements Change {
    public SetSessionToolDeferral {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putSession(state.session(sessionId).withToolDeferral(toolDeferral));
    }
  }

  /** Adds one turn's usage to its total (or, in a snapshot, restores a total). */
  record AddUsage(UsageTotal usage) implements Change {
    public AddUsage {
      Objects.requireNonNull(usage, "usage");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.providers().addUsage(usage);
    }
  }

  /** A chat session's new name. */
  record RenameSession(String sessionId, String name) implements Change {
    public RenameSession {
      Objects.requireNonNull(sessionId, "sessionId");
      Objects.requireNonNull(name, "name");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putSession(state.session(sessionId).withName(name));
    }
  }

  /** A project's new name. */
  record RenameProject(String projectId, String name) implements Change {
    public RenameProject {
      Objects.requireNonNull(projectId, "projectId");
      Objects.requireNonNull(name, "name");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.putProject(state.project(projectId).withName(name));
    }
  }

  /** Removes a chat session with its turns and their blocks. */
  record DeleteSession(String sessionId) implements Change {
    public DeleteSession {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.removeSession(sessionId);
    }
  }

  /** Removes a project with its chat sessions, their turns and the turns' blocks. */
  record DeleteProject(String projectId) implements Change {
    public DeleteProject {
      Objects.requireNonNull(projectId, "projectId");
    }

    @Override
    public void applyTo(IndexedState state) {
      state.removeProject(projectId);
    }
  }
}
