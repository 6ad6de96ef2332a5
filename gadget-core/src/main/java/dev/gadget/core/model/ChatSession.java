package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A conversation about one project. Its turns are stored apart and listed in order.
 *
 * @param id the session's id
 * @param userId the owner
 * @param projectId the project it is about
 * @param name the display name
 * @param workspaceId the workspace that last ran a turn of it, or {@code null}: the server routes
 *     the next work order there first (seed 001, section 7.6)
 * @param createdAt when it was created
 * @param providerId the provider its next turns use ({@link ModelProvider#id()}, or
 *     {@link TurnModel#DEFAULT_PROVIDER}), or {@code null}: the server's default
 * @param modelId the model its next turns use, or {@code null}: the provider's default
 * @param sampling how its next turns sample, each value set overriding its provider's, or
 *     {@code null} (also for a {@link Sampling} that sets nothing): the provider's
 * @param approvalPolicy which of its next turns' tool calls wait for a person (the wire name of
 *     {@code dev.gadget.core.agent.ApprovalPolicy}), or {@code null}: the server's default. Kept
 *     in the store so that every server node, and a restarted one, uses it
 * @param toolDeferral when its next turns defer tools, as {@code ToolDeferral#parse} reads it
 *     ({@code auto}, {@code always}, {@code never} or a share of the context budget such as
 *     {@code 10%}), or {@code null}: as the drone is set
 * @param createTools whether the agent may write itself tools ({@code create_tool}) in its next
 *     turns, or {@code null}: as the drone is set. Kept in the store so that every server node,
 *     and a restarted one, uses it
 */
public record ChatSession(
    @JsonProperty("_id") String id,
    String userId,
    String projectId,
    String name,
    String workspaceId,
    Instant createdAt,
    String providerId,
    String modelId,
    Sampling sampling,
    String approvalPolicy,
    String toolDeferral,
    Boolean createTools) {
  public ChatSession {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(createdAt, "createdAt");
    sampling = Sampling.orNull(sampling);
    toolDeferral = toolDeferral == null || toolDeferral.isBlank() ? null : toolDeferral;
  }

  /** A session with its own settings but {@code createTools}: as the drone is set. */
  public ChatSession(String id, String userId, String projectId, String name, String workspaceId,
      Instant createdAt, String providerId, String modelId, Sampling sampling,
      String approvalPolicy, String toolDeferral) {
    this(id, userId, projectId, name, workspaceId, createdAt, providerId, modelId, sampling,
        approvalPolicy, toolDeferral, null);
  }

  /**
   * A session with its sampling set, the server's default approval policy and the drone's tool
   * deferral and {@code createTools}.
   */
  public ChatSession(String id, String userId, String projectId, String name, String workspaceId,
      Instant createdAt, String providerId, String modelId, Sampling sampling) {
    this(id, userId, projectId, name, workspaceId, createdAt, providerId, modelId, sampling, null,
        null);
  }

  /** A session with its provider and model chosen and no sampling of its own. */
  public ChatSession(String id, String userId, String projectId, String name, String workspaceId,
      Instant createdAt, String providerId, String modelId) {
    this(id, userId, projectId, name, workspaceId, createdAt, providerId, modelId, null);
  }

  /** A session that has chosen no model yet: its turns use the server's default. */
  public ChatSession(String id, String userId, String projectId, String name, String workspaceId,
      Instant createdAt) {
    this(id, userId, projectId, name, workspaceId, createdAt, null, null, null);
  }

  /** This session with another workspace id. */
  public ChatSession withWorkspaceId(String workspaceId) {
    return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
        modelId, sampling, approvalPolicy, toolDeferral, createTools);
  }

  /** This session with another name. */
  public ChatSession withName(String name) {
    return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
        modelId, sampling, approvalPolicy, toolDeferral, createTools);
  }

  /** This session with another provider and model ({@code null}s: the server's default). */
  public ChatSession withModel(String providerId, String modelId) {
    return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
        modelId, sampling, approvalPolicy, toolDeferral, createTools);
  }

  /** This session with its own sampling ({@code null}: its provider's). */
  public ChatSession withSampling(Sampling sampling) {
    return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
        modelId, sampling, approvalPolicy, toolDeferral, createTools);
  }

  /** This session with another approval policy ({@code null}: the server's default). */
  public ChatSession withApprovalPolicy(String approvalPolicy) {
    return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
        modelId, sampling, approvalPolicy, toolDeferral, createTools);
  }

  /** This session with its own tool deferral ({@code null}: the drone's). */
  public ChatSession withToolDeferral(String toolDeferral) {
    return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
        modelId, sampling, approvalPolicy, toolDeferral, createTools);
  }

  /** This session with its own {@code createTools} ({@code null}: as the drone is set). */
  public ChatSession withCreateTools(Boolean createTools) {
    return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
        modelId, sampling, approvalPolicy, toolDeferral, createTools);
  }
}
