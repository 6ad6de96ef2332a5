package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One block of a model's reasoning as its provider returned it, signed or encrypted, kept with a
 * {@link TurnBlock.Thinking thinking block} and a {@link ChatMessage} so that the next turn can
 * send it back unchanged: an Anthropic {@code thinking} block's {@code signature}, an Anthropic
 * {@code redacted_thinking} block's {@code data}, or an OpenAI Responses {@code reasoning} item
 * with its {@code encrypted_content}. Opaque: stored and carried as it came, sent back only to a
 * provider of the same {@link #provider() kind}, never shown on a page, never logged;
 * {@link #toString()} shows lengths only.
 *
 * @param provider the provider kind that produced it ({@code "anthropic"} or
 *     {@code "openai-responses"})
 * @param text the reasoning text the block signs ({@code ""} for encrypted reasoning)
 * @param signature the provider's signature of {@code text}, or {@code null}
 * @param data the encrypted reasoning (for OpenAI, the whole reasoning item as JSON), or
 *     {@code null}; exactly one of {@code signature} and {@code data} is set
 */
public record SignedReasoning(String provider, String text,
    @JsonInclude(JsonInclude.Include.NON_NULL) String signature,
    @JsonInclude(JsonInclude.Include.NON_NULL) String data) {
  /** Longest kept value of any field, in characters: a bound against a malformed peer. */
  public static final int MAX_CHARS = 4_000_000;

  public SignedReasoning {
    if (provider == null || provider.isBlank()) {
      throw new IllegalArgumentException("signed reasoning needs the provider kind that made it");
    }
    text = text == null ? "" : text;
    if ((signature == null) == (data == null)) {
      throw new IllegalArgumentException(
          "signed reasoning has either a signature or encrypted data, not both or neither");
    }
    if (text.length() > MAX_CHARS || (signature != null && signature.length() > MAX_CHARS)
        || (data != null && data.length() > MAX_CHARS)) {
      throw new IllegalArgumentException(
          "signed reasoning is longer than " + MAX_CHARS + " characters");
    }
  }

  /** Shows the provider and lengths only: the rest is the provider's, not for people. */
  @Override
  public String toString() {
    return "SignedReasoning[" + provider + ", " + text.length() + " chars, "
        + (signature != null ? "signed" : "encrypted " + data.length() + " chars") + "]";
  }
}
