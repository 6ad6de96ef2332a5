package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.FinishReason;
import java.util.Locale;

/** Maps the finish reasons servers send onto {@link FinishReason}. */
final class FinishReasons {
  private FinishReasons() {}

  /**
   * The normalized reason.
   *
   * @param raw what the server said, or {@code null}
   * @param hasToolCalls whether the reply called tools: then "stop" (or nothing) means tool calls
   */
  static FinishReason of(String raw, boolean hasToolCalls) {
    if (raw == null || raw.isEmpty()) {
      return hasToolCalls ? FinishReason.TOOL_CALLS : FinishReason.STOP;
    }
    switch (raw.toLowerCase(Locale.ROOT)) {
      case "stop":
      case "end_turn":
      case "stop_sequence":
      case "eos":
        return hasToolCalls ? FinishReason.TOOL_CALLS : FinishReason.STOP;
      case "tool_calls":
      case "function_call":
      case "tool_use":
        return FinishReason.TOOL_CALLS;
      case "length":
      case "max_tokens":
        return FinishReason.LENGTH;
      case "content_filter":
      case "refusal": // Anthropic
        return FinishReason.CONTENT_FILTER;
      default:
        return FinishReason.OTHER;
    }
  }
}
