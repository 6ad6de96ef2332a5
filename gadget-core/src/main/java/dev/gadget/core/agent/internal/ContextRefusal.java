package dev.gadget.core.agent.internal;

import dev.gadget.core.llm.LlmException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Whether a provider refused a request because its context is too long: OpenAI's
 * {@code context_length_exceeded}, Anthropic's "prompt is too long", llama.cpp's "exceeds the
 * available context size", vLLM's "maximum context length", Ollama's "exceeds the context
 * length". Pure.
 */
final class ContextRefusal {
  private static final Pattern TOO_LONG = Pattern.compile("context[_ ]length[_ ]exceeded"
      + "|maximum context length|context (?:length|size|window)"
      + "|prompt is too long|too many (?:input )?tokens|input is too long|exceeds? the"
      + " (?:available )?context");

  private ContextRefusal() {}

  static boolean is(LlmException e) {
    if (e.kind() != LlmException.Kind.HTTP && e.kind() != LlmException.Kind.STREAM) {
      return false;
    }
    if (e.statusCode() >= 500 || e.statusCode() == 429) {
      return false;
    }
    String text = (e.getMessage() + " " + e.providerMessage() + " " + e.providerCode())
        .toLowerCase(Locale.ROOT);
    return TOO_LONG.matcher(text).find();
  }
}
