package dev.gadget.core.llm;

import dev.gadget.core.model.ModelParams;
import java.util.List;
import java.util.Objects;

/**
 * One chat-completion request.
 *
 * @param model the model id
 * @param messages the whole conversation, oldest first
 * @param tools the tools offered (may be empty)
 * @param params sampling parameters; unset ones are left to the server
 * @param think whether to ask for reasoning (Ollama's {@code think}); {@code null}: server default
 */
public record LlmRequest(
    String model,
    List<LlmMessage> messages,
    List<ToolDefinition> tools,
    ModelParams params,
    Boolean think) {
  public LlmRequest {
    Objects.requireNonNull(model, "model");
    messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
    tools = tools == null ? List.of() : List.copyOf(tools);
    params = params == null ? ModelParams.DEFAULTS : params;
  }
}
