package dev.gadget.core.llm;

/**
 * Receives one streaming call. Every method has a no-op default. Exactly one of
 * {@link #onComplete} and {@link #onError} is called, last; callbacks never overlap.
 */
public interface LlmListener {
  /** Reasoning text as it arrives. */
  default void onThinking(String text) {}

  /** Reply text as it arrives. */
  default void onText(String text) {}

  /** A tool call, once its name and arguments are complete. */
  default void onToolCall(LlmToolCall call) {}

  /**
   * A block of reasoning as the server signed or encrypted it, once it is complete (before the
   * reply text or tool calls that follow it); also in {@link LlmCompletion#thinkingBlocks()}.
   * Opaque: keep it to send back, never show or log it.
   */
  default void onSignedThinking(ThinkingBlock block) {}

  /** The call succeeded. Terminal. */
  default void onComplete(LlmCompletion completion) {}

  /**
   * The call failed or was cancelled. Terminal.
   *
   * @param error what went wrong
   * @param partial what had arrived before the failure (text, thinking, complete tool calls)
   */
  default void onError(LlmException error, LlmCompletion partial) {}
}
