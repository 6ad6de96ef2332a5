package dev.gadget.core.llm;

import dev.gadget.core.model.ModelParams;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One chat-completion request. Build one with {@link #builder(String, List)}, or with the
 * five-value constructor when reasoning is a plain on/off switch.
 *
 * @param model the model id
 * @param messages the whole conversation, oldest first
 * @param tools the tools offered (may be empty)
 * @param params sampling parameters and the output limit; unset ones are left to the server
 * @param think whether to ask for reasoning (Ollama's {@code think}); {@code null}: server default
 * @param thinkLevel how hard to reason, such as {@code "low"}, {@code "medium"} or {@code "high"}
 *     (Ollama's {@code think} level, which gpt-oss requires; OpenAI's {@code reasoning_effort}),
 *     or {@code null}; when set, reasoning is on whatever {@code think} says
 * @param thinkingBudget the most tokens the model may spend reasoning (Anthropic's
 *     {@code budget_tokens}), or {@code null} for the client's default; when set, reasoning is on
 * @param cacheKey a stable name for the conversation this request continues (the agent loop
 *     gives a hash of the chat's id), with which a provider keeps its prompt cache for it:
 *     OpenAI's {@code prompt_cache_key}, llama.cpp's slot; {@code null}: none
 * @param deferredTools tools the model may load by reference ({@link ToolLoading#REFERENCE}):
 *     a client whose provider can (Anthropic's) sends them marked {@code defer_loading}, others
 *     leave them out; empty for none
 * @param toolReferences the tools a tool result loads by reference, by the id of the call it
 *     answers ({@link ToolLoading#REFERENCE}; only tools of {@code deferredTools}); empty for none
 */
public record LlmRequest(
    String model,
    List<LlmMessage> messages,
    List<ToolDefinition> tools,
    ModelParams params,
    Boolean think,
    String thinkLevel,
    Integer thinkingBudget,
    String cacheKey,
    List<ToolDefinition> deferredTools,
    Map<String, List<String>> toolReferences) {
  public LlmRequest {
    Objects.requireNonNull(model, "model");
    messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
    tools = tools == null ? List.of() : List.copyOf(tools);
    params = params == null ? ModelParams.DEFAULTS : params;
    if (thinkLevel != null && thinkLevel.isBlank()) {
      throw new IllegalArgumentException("thinkLevel is blank: use null for none");
    }
    if (thinkingBudget != null && thinkingBudget < 1) {
      throw new IllegalArgumentException("thinkingBudget must be positive: " + thinkingBudget);
    }
    if (cacheKey != null && cacheKey.isBlank()) {
      throw new IllegalArgumentException("cacheKey is blank: use null for none");
    }
    deferredTools = deferredTools == null ? List.of() : List.copyOf(deferredTools);
    Map<String, List<String>> refs = new LinkedHashMap<>();
    if (toolReferences != null) {
      toolReferences.forEach((id, names) -> refs.put(Objects.requireNonNull(id, "call id"),
          List.copyOf(names)));
    }
    toolReferences = Collections.unmodifiableMap(refs);
  }

  /**
   * A request that loads no tool by reference.
   *
   * @param model the model id
   * @param messages the whole conversation, oldest first
   * @param tools the tools offered (may be empty)
   * @param params sampling parameters and the output limit
   * @param think whether to ask for reasoning; {@code null}: server default
   * @param thinkLevel how hard to reason, or {@code null}
   * @param thinkingBudget the most tokens the model may spend reasoning, or {@code null}
   * @param cacheKey a stable name for the conversation, or {@code null}
   */
  public LlmRequest(String model, List<LlmMessage> messages, List<ToolDefinition> tools,
      ModelParams params, Boolean think, String thinkLevel, Integer thinkingBudget,
      String cacheKey) {
    this(model, messages, tools, params, think, thinkLevel, thinkingBudget, cacheKey, null, null);
  }

  /**
   * A request without a cache key.
   *
   * @param model the model id
   * @param messages the whole conversation, oldest first
   * @param tools the tools offered (may be empty)
   * @param params sampling parameters and the output limit
   * @param think whether to ask for reasoning; {@code null}: server default
   * @param thinkLevel how hard to reason, or {@code null}
   * @param thinkingBudget the most tokens the model may spend reasoning, or {@code null}
   */
  public LlmRequest(String model, List<LlmMessage> messages, List<ToolDefinition> tools,
      ModelParams params, Boolean think, String thinkLevel, Integer thinkingBudget) {
    this(model, messages, tools, params, think, thinkLevel, thinkingBudget, null);
  }

  /**
   * A request with reasoning as an on/off switch.
   *
   * @param model the model id
   * @param messages the whole conversation, oldest first
   * @param tools the tools offered (may be empty)
   * @param params sampling parameters; unset ones are left to the server
   * @param think whether to ask for reasoning; {@code null}: server default
   */
  public LlmRequest(String model, List<LlmMessage> messages, List<ToolDefinition> tools,
      ModelParams params, Boolean think) {
    this(model, messages, tools, params, think, null, null, null);
  }

  /**
   * The cache key of a conversation named {@code conversationId} (such as a chat's id):
   * {@code "gadget-"} and 32 hex digits of its SHA-256, so that the id itself never reaches the
   * provider, and the same id always gives the same key.
   */
  public static String cacheKeyOf(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(conversationId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return "gadget-" + java.util.HexFormat.of().formatHex(digest, 0, 16);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no SHA-256", e);
    }
  }

  /** A builder with the two required values. */
  public static Builder builder(String model, List<LlmMessage> messages) {
    return new Builder(model, messages);
  }

  /**
   * Whether this request asks for reasoning: {@code true} or {@code false} when it says so
   * ({@link #thinkLevel()} or {@link #thinkingBudget()} set means {@code true}), else
   * {@code null} (the server's default).
   */
  public Boolean thinkingWanted() {
    return thinkLevel != null || thinkingBudget != null ? Boolean.TRUE : think;
  }

  /** Builds an {@link LlmRequest}. Not thread-safe. */
  public static final class Builder {
    private final String model;
    private final List<LlmMessage> messages;
    private List<ToolDefinition> tools = List.of();
    private ModelParams params;
    private Boolean think;
    private String thinkLevel;
    private Integer thinkingBudget;
    private String cacheKey;
    private List<ToolDefinition> deferredTools = List.of();
    private Map<String, List<String>> toolReferences = Map.of();

    private Builder(String model, List<LlmMessage> messages) {
      this.model = Objects.requireNonNull(model, "model");
      this.messages = Objects.requireNonNull(messages, "messages");
    }

    /** The tools offered (default none). */
    public Builder tools(List<ToolDefinition> tools) {
      this.tools = tools;
      return this;
    }

    /** Sampling parameters and the output limit (default: the server's). */
    public Builder params(ModelParams params) {
      this.params = params;
      return this;
    }

    /** Whether to ask for reasoning (default: the server's choice). */
    public Builder think(Boolean think) {
      this.think = think;
      return this;
    }

    /** How hard to reason, such as {@code "high"} (default none). */
    public Builder thinkLevel(String level) {
      this.thinkLevel = level;
      return this;
    }

    /** The most tokens the model may spend reasoning (default: the client's). */
    public Builder thinkingBudget(Integer tokens) {
      this.thinkingBudget = tokens;
      return this;
    }

    /**
     * A stable name for the conversation, with which a provider keeps its prompt cache for it
     * (default none). It is sent to the provider: use a hash, not a secret or a person's name.
     */
    public Builder cacheKey(String key) {
      this.cacheKey = key;
      return this;
    }

    /** Tools the model may load by reference (default none); see {@link ToolLoading#REFERENCE}. */
    public Builder deferredTools(List<ToolDefinition> tools) {
      this.deferredTools = tools;
      return this;
    }

    /** The tools each tool result loads by reference, by call id (default none). */
    public Builder toolReferences(Map<String, List<String>> references) {
      this.toolReferences = references;
      return this;
    }

    /** The request. */
    public LlmRequest build() {
      return new LlmRequest(model, messages, tools, params, think, thinkLevel, thinkingBudget,
          cacheKey, deferredTools, toolReferences);
    }
  }
}
