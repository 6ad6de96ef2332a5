package dev.gadget.core.llm;

import java.util.OptionalInt;

/**
 * A streaming chat-completion client: the SPI the agent loop calls and that every LLM adapter
 * implements (Ollama, OpenAI-compatible, Anthropic, {@link ScriptedLlmClient}).
 *
 * <p><b>Contract.</b> {@link #stream} returns at once; the reply is delivered to the listener
 * as it arrives, then exactly one terminal callback: {@link LlmListener#onComplete} or
 * {@link LlmListener#onError}. No callback follows the terminal one. Callbacks for one call
 * never run concurrently with each other, but may run on any thread. {@link LlmCall#cancel()}
 * ends the call with an {@link LlmException} whose kind is {@link LlmException.Kind#CANCELLED}
 * (unless it had already ended) and releases the connection. One client serves any number of
 * concurrent calls. A listener that throws is logged and does not break the call.
 */
public interface LlmClient {
  /**
   * Starts one streaming call.
   *
   * @param request what to send
   * @param listener receives the stream and one terminal event
   * @return a handle to cancel the call or wait for it
   */
  LlmCall stream(LlmRequest request, LlmListener listener);

  /**
   * The context window of {@code model} (prompt and reply together, in tokens) where the
   * provider says it, such as Ollama's {@code /api/show}; empty when it is not known. May block
   * on a request to the server (bounded by the client's timeouts) and is called at most once per
   * turn, from the turn's thread; implementations cache what they learn. Never throws: a server
   * that cannot say gives an empty answer. The default knows nothing.
   *
   * @param model the model id
   * @return the window in tokens, or empty
   */
  default OptionalInt contextWindow(String model) {
    return OptionalInt.empty();
  }

  /**
   * The most tools one request may offer: the agent loop defers the rest (and finds them by
   * search) whatever its deferral policy says. The default has no limit; an OpenAI-compatible
   * client (Chat Completions or Responses) says {@value OpenAiClient#MAX_TOOLS}.
   */
  default int maxTools() {
    return Integer.MAX_VALUE;
  }

  /**
   * How a turn that defers tools should give the model the ones it loads, so that the
   * provider's prompt cache holds ({@link ToolLoading}). The default appends them to the tools,
   * which every provider takes; {@link AnthropicClient} says {@link ToolLoading#REFERENCE} for
   * Anthropic's own API, {@link OpenAiClient}, {@link OpenAiResponsesClient} and
   * {@link OllamaClient} {@link ToolLoading#IN_RESULT}.
   */
  default ToolLoading toolLoading() {
    return ToolLoading.APPEND;
  }
}
