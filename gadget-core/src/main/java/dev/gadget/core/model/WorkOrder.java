package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * Everything a drone needs to run one chat turn (seed 002, {@code IWorkOrder}): the project, the
 * LLM provider, the chat session with its context, and the turn with the user's prompt.
 *
 * <p>The provider's API key travels to the drone in memory only: {@link #toString()} redacts it
 * and {@link #withoutSecrets()} is what a drone writes to {@code .gadget/work-order.json}.
 *
 * @param id this work order's id (a retry of the same turn gets a new one)
 * @param project the project to work in
 * @param provider the LLM to call
 * @param chatSession the session and its earlier messages
 * @param chatTurn the turn to run
 * @param workspaceId the workspace of the drone the server sent it to (seed 001,
 *     {@code processWorkOrder}), or {@code null}: any; a drone refuses a work order meant for
 *     another workspace
 * @param approvalPolicy which tool calls wait for a person's approval: {@code never} (also when
 *     {@code null}), {@code commands}, {@code commands-and-writes} or {@code everything} (the
 *     wire names of {@code dev.gadget.core.agent.ApprovalPolicy})
 * @param createTools whether the agent may write itself tools ({@code create_tool}) in this
 *     turn, where its drone allows it; {@code null}: as the drone says
 * @param toolDeferral when the turn defers tools, the chat's setting ({@code auto},
 *     {@code always}, {@code never} or a share of the context budget such as {@code 10%}, read
 *     by {@code ToolDeferral#parse}); {@code null}: as the drone says
 */
public record WorkOrder(
    @JsonProperty("_id") String id,
    ProjectRef project,
    ProviderConfig provider,
    SessionRef chatSession,
    TurnRef chatTurn,
    String workspaceId,
    String approvalPolicy,
    Boolean createTools,
    String toolDeferral) {
  @JsonCreator // the canonical constructor, of the several
  public WorkOrder {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(project, "project");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(chatSession, "chatSession");
    Objects.requireNonNull(chatTurn, "chatTurn");
  }

  /** A work order whose tool deferral is as its drone says. */
  public WorkOrder(String id, ProjectRef project, ProviderConfig provider,
      SessionRef chatSession, TurnRef chatTurn, String workspaceId, String approvalPolicy,
      Boolean createTools) {
    this(id, project, provider, chatSession, chatTurn, workspaceId, approvalPolicy, createTools,
        null);
  }

  /** A work order whose tool writing is as its drone says. */
  public WorkOrder(String id, ProjectRef project, ProviderConfig provider,
      SessionRef chatSession, TurnRef chatTurn, String workspaceId, String approvalPolicy) {
    this(id, project, provider, chatSession, chatTurn, workspaceId, approvalPolicy, null);
  }

  /** A work order for any workspace ({@code workspaceId} {@code null}). */
  public WorkOrder(String id, ProjectRef project, ProviderConfig provider,
      SessionRef chatSession, TurnRef chatTurn) {
    this(id, project, provider, chatSession, chatTurn, null, null);
  }

  /** A work order for {@code workspaceId} whose tool calls wait for nobody. */
  public WorkOrder(String id, ProjectRef project, ProviderConfig provider,
      SessionRef chatSession, TurnRef chatTurn, String workspaceId) {
    this(id, project, provider, chatSession, chatTurn, workspaceId, null);
  }

  /**
   * This work order with the provider's API key removed, and any credentials in the project's
   * git URL ({@code https://user:token@host/...}) too: what may be written to disk.
   */
  public WorkOrder withoutSecrets() {
    ProjectRef safe = new ProjectRef(project.id(), project.name(), project.slug(),
        ProjectRef.withoutCredentials(project.gitUrl()));
    return new WorkOrder(id, safe, provider.withoutApiKey(), chatSession, chatTurn,
        workspaceId, approvalPolicy, createTools, toolDeferral);
  }

  /**
   * The project part of a work order.
   *
   * @param id the project's id
   * @param name its name
   * @param slug its directory name in the workspace
   * @param gitUrl where to clone it from
   */
  public record ProjectRef(@JsonProperty("_id") String id, String name, String slug, String gitUrl) {
    public ProjectRef {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(slug, "slug");
      Objects.requireNonNull(gitUrl, "gitUrl");
    }

    /**
     * {@code url} without the user information of a {@code scheme://user:secret@host} URL, for
     * files and messages; other forms (paths, {@code git@host:repo}) come back unchanged.
     */
    public static String withoutCredentials(String url) {
      return url == null ? null : url.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", "$1");
    }

    /** The reference to {@code project}. */
    public static ProjectRef of(Project project) {
      return new ProjectRef(project.id(), project.name(), project.slug(), project.gitUrl());
    }
  }

  /**
   * The chat session part of a work order.
   *
   * @param id the session's id
   * @param name its name
   * @param context the earlier messages, oldest first
   */
  public record SessionRef(
      @JsonProperty("_id") String id, String name, List<ChatMessage> context) {
    public SessionRef {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(name, "name");
      context = context == null ? List.of() : List.copyOf(context);
    }
  }

  /**
   * The chat turn part of a work order.
   *
   * @param id the turn's id
   * @param mode the agent mode
   * @param prompt the user's prompt
   */
  public record TurnRef(@JsonProperty("_id") String id, String mode, String prompt) {
    public TurnRef {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(prompt, "prompt");
      mode = mode == null ? "build" : mode;
    }
  }
}
