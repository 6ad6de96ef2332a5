package dev.gadget.core.agent;

import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.WorkOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * One turn for the agent loop to run: the equivalent of a {@link WorkOrder} once its project is
 * checked out in a directory. Build one with {@link #builder(Path, String, String)} or
 * {@link #of(WorkOrder, Path)}.
 *
 * @param projectDir the project's working tree; every tool is confined to it
 * @param projectName the project's name, for the system prompt
 * @param model the model id to call
 * @param params sampling parameters, never {@code null}
 * @param think whether to ask the model for reasoning; {@code null}: the server's default
 * @param context the session's earlier messages, oldest first (system messages are skipped)
 * @param prompt the user's prompt
 * @param mode the agent mode (free text, such as {@code "build"}), for the system prompt
 * @param resume messages of this turn already exchanged before an interruption (each assistant
 *     reply with its tool calls, then the tools' results), appended after the prompt so that the
 *     run resumes after the last completed tool call instead of starting over; usually empty
 * @param cacheKey the name every model request of the chat carries so that the provider keeps
 *     its prompt cache for it ({@link dev.gadget.core.llm.LlmRequest#cacheKey()}; a hash of the
 *     chat's id, see {@link Builder#chatId}), or {@code null}
 */
public record AgentRequest(
    Path projectDir,
    String projectName,
    String model,
    ModelParams params,
    Boolean think,
    List<ChatMessage> context,
    String prompt,
    String mode,
    List<LlmMessage> resume,
    String cacheKey) {
  public AgentRequest {
    Objects.requireNonNull(projectDir, "projectDir");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(prompt, "prompt");
    projectName = projectName == null ? String.valueOf(projectDir.getFileName()) : projectName;
    params = params == null ? ModelParams.DEFAULTS : params;
    context = context == null ? List.of() : List.copyOf(context);
    mode = mode == null ? "build" : mode;
    resume = resume == null ? List.of() : List.copyOf(resume);
  }

  /** A request without a cache key (the nine values before it existed). */
  public AgentRequest(Path projectDir, String projectName, String model, ModelParams params,
      Boolean think, List<ChatMessage> context, String prompt, String mode,
      List<LlmMessage> resume) {
    this(projectDir, projectName, model, params, think, context, prompt, mode, resume, null);
  }

  /** The request for {@code order}, whose project is checked out in {@code projectDir}. */
  public static AgentRequest of(WorkOrder order, Path projectDir) {
    return builder(projectDir, order.provider().modelId(), order.chatTurn().prompt())
        .projectName(order.project().name())
        .params(order.provider().params())
        .context(order.chatSession().context())
        .mode(order.chatTurn().mode())
        .chatId(order.chatSession().id())
        .build();
  }

  /** A builder with the three required values. */
  public static Builder builder(Path projectDir, String model, String prompt) {
    return new Builder(projectDir, model, prompt);
  }

  /** Builds an {@link AgentRequest}. */
  public static final class Builder {
    private final Path projectDir;
    private final String model;
    private final String prompt;
    private String projectName;
    private ModelParams params;
    private Boolean think;
    private List<ChatMessage> context = List.of();
    private String mode;
    private List<LlmMessage> resume = List.of();
    private String cacheKey;

    private Builder(Path projectDir, String model, String prompt) {
      this.projectDir = Objects.requireNonNull(projectDir, "projectDir");
      this.model = Objects.requireNonNull(model, "model");
      this.prompt = Objects.requireNonNull(prompt, "prompt");
    }

    /** The project's name (default: the directory's name). */
    public Builder projectName(String projectName) {
      this.projectName = projectName;
      return this;
    }

    /** Sampling parameters (default: the server's). */
    public Builder params(ModelParams params) {
      this.params = params;
      return this;
    }

    /** Whether to ask for reasoning (default: the server's choice). */
    public Builder think(Boolean think) {
      this.think = think;
      return this;
    }

    /** The session's earlier messages, oldest first. */
    public Builder context(List<ChatMessage> context) {
      this.context = Objects.requireNonNull(context, "context");
      return this;
    }

    /** The agent mode (default {@code "build"}). */
    public Builder mode(String mode) {
      this.mode = mode;
      return this;
    }

    /** Messages of this turn from before an interruption, to resume after (default none). */
    public Builder resume(List<LlmMessage> resume) {
      this.resume = Objects.requireNonNull(resume, "resume");
      return this;
    }

    /**
     * The chat this turn belongs to: its model requests carry a hash of it as their cache key
     * ({@link dev.gadget.core.llm.LlmRequest#cacheKeyOf}), never the id itself (default none).
     */
    public Builder chatId(String chatId) {
      this.cacheKey = chatId == null ? null : dev.gadget.core.llm.LlmRequest.cacheKeyOf(chatId);
      return this;
    }

    /** The request. */
    public AgentRequest build() {
      return new AgentRequest(projectDir, projectName, model, params, think, context, prompt,
          mode, resume, cacheKey);
    }
  }
}
