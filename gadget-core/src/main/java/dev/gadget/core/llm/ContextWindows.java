package dev.gadget.core.llm;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The context windows of well-known hosted models (prompt and reply together, in tokens), as
 * their vendors published them in 2025, for clients whose server does not say:
 * {@link AnthropicClient}, {@link OpenAiResponsesClient}, and {@link OpenAiClient} when the
 * server's model list has no window. A vendor prefix such as OpenRouter's {@code openai/} is
 * ignored, and a dated or suffixed id ({@code gpt-4o-2024-08-06}) matches its family. Where a
 * larger window needs an opt-in (Claude's 1M-token beta), the default is given. Pure and
 * thread-safe.
 */
public final class ContextWindows {
  /** A family of models: ids that start with {@code prefix}, then end or go on past a word. */
  private record Family(String prefix, int window) {
    boolean matches(String id) {
      return id.startsWith(prefix) && (prefix.endsWith("-") || id.length() == prefix.length()
          || !Character.isLetterOrDigit(id.charAt(prefix.length())));
    }
  }

  /** The families, a longer prefix before a shorter one it starts with. */
  private static final List<Family> TABLE = List.of(
      new Family("claude-", 200_000),
      new Family("gpt-5-chat", 128_000),
      new Family("gpt-5", 400_000),
      new Family("gpt-4.1", 1_047_576),
      new Family("gpt-4o", 128_000),
      new Family("gpt-4-turbo", 128_000),
      new Family("gpt-4", 8_192),
      new Family("gpt-3.5-turbo", 16_385),
      new Family("gpt-oss", 131_072),
      new Family("o1-mini", 128_000),
      new Family("o1", 200_000),
      new Family("o3", 200_000),
      new Family("o4-mini", 200_000),
      new Family("codex-mini", 200_000),
      new Family("deepseek-", 128_000),
      new Family("gemini-", 1_048_576));

  private ContextWindows() {}

  /**
   * The published window of {@code model}, or empty when it is not in the table.
   *
   * @param model a model id, such as {@code claude-sonnet-4-5} or {@code openai/gpt-5-mini}
   * @return the window in tokens, or empty
   */
  public static OptionalInt known(String model) {
    String m = Objects.requireNonNull(model, "model").toLowerCase(Locale.ROOT);
    m = m.substring(m.lastIndexOf('/') + 1);
    for (Family f : TABLE) {
      if (f.matches(m)) {
        return OptionalInt.of(f.window());
      }
    }
    return OptionalInt.empty();
  }
}
