package dev.gadget.core.llm;

import java.util.Objects;

/**
 * One block of reasoning as a server returned it together with a signature, such as Anthropic's
 * {@code thinking} block (text and {@code signature}) or its {@code redacted_thinking} block
 * (encrypted {@code data} only). Servers that sign reasoning require it back unchanged on the
 * assistant message that called tools, so {@link LlmCompletion#thinkingBlocks()} is copied onto
 * {@link LlmMessage#thinkingBlocks()} for the next request of the same turn. Opaque to callers:
 * pass it on, do not edit it.
 *
 * @param text the reasoning ({@code ""} for an Anthropic redacted block, the summary for an
 *     OpenAI reasoning item)
 * @param signature the server's signature of {@code text}, or {@code null} for a redacted block
 * @param redactedData the encrypted reasoning of a redacted block, or {@code null}
 */
public record ThinkingBlock(String text, String signature, String redactedData) {
  public ThinkingBlock {
    text = text == null ? "" : text;
    if ((signature == null) == (redactedData == null)) {
      throw new IllegalArgumentException(
          "a thinking block has either a signature or redacted data, not both or neither");
    }
  }

  /** Reasoning with the server's signature. */
  public static ThinkingBlock signed(String text, String signature) {
    return new ThinkingBlock(text, Objects.requireNonNull(signature, "signature"), null);
  }

  /** Reasoning the server encrypted ({@code redacted_thinking}). */
  public static ThinkingBlock redacted(String data) {
    return new ThinkingBlock("", null, Objects.requireNonNull(data, "data"));
  }

  /** Whether this is encrypted reasoning ({@link #redactedData()}) rather than signed text. */
  public boolean isRedacted() {
    return redactedData != null;
  }

  /**
   * The provider kind whose reasoning this is: {@code "openai-responses"} for an OpenAI
   * Responses {@code reasoning} item (its {@link #redactedData()} is the item as JSON), otherwise
   * {@code "anthropic"}. Each client sends back only its own kind's blocks.
   */
  public String provider() {
    return redactedData != null && redactedData.startsWith("{") ? OPENAI_RESPONSES : ANTHROPIC;
  }

  /** {@link #provider()} of Anthropic's signed and redacted thinking. */
  public static final String ANTHROPIC = "anthropic";

  /** {@link #provider()} of OpenAI Responses reasoning items. */
  public static final String OPENAI_RESPONSES = "openai-responses";

  /** Shows the lengths only: the text may be long and the signature means nothing to people. */
  @Override
  public String toString() {
    return isRedacted() ? "ThinkingBlock[redacted, " + redactedData.length() + " chars]"
        : "ThinkingBlock[" + text.length() + " chars, signed]";
  }
}
