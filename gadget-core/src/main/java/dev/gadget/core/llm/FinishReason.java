package dev.gadget.core.llm;

/** Why the model stopped. */
public enum FinishReason {
  /** It finished its reply. */
  STOP,
  /** It asked for tools (normalized: also when a server says "stop" after tool calls). */
  TOOL_CALLS,
  /** It hit the token limit. */
  LENGTH,
  /** The server filtered the content. */
  CONTENT_FILTER,
  /** Anything else, or not said. */
  OTHER
}
