package dev.gadget.core.llm;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Why an LLM call failed: what a caller needs to decide what to do next. {@link #kind()} names
 * the failure, {@link #statusCode()} is the HTTP status (0 when there was none),
 * {@link #providerMessage()} the server's own error text ({@link #providerCode()} and
 * {@link #providerType()} its code and type), {@link #isRetryable()} whether the same request may
 * succeed later, and {@link #retryAfter()} the server's {@code Retry-After}.
 */
public class LlmException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What kind of failure. */
  public enum Kind {
    /** Could not connect. */
    CONNECT,
    /** The server answered with an HTTP error status. */
    HTTP,
    /** Connect, first-byte or idle timeout. */
    TIMEOUT,
    /** The server reported an error inside a stream that had started. */
    STREAM,
    /** The stream was malformed or ended early. */
    PROTOCOL,
    /** {@link LlmCall#cancel()} was called. */
    CANCELLED,
    /** The request was refused before it was sent (such as a scripted client out of replies). */
    CLIENT
  }

  private final Kind kind;
  private final int statusCode;
  private final String providerMessage;
  private final String providerCode;
  private final String providerType;
  private final boolean retryable;
  private final Duration retryAfter;

  /**
   * A failure.
   *
   * @param kind what kind
   * @param message a message for people (never contains a secret)
   * @param statusCode the HTTP status, or 0
   * @param providerMessage the provider's error message, or {@code null}
   * @param retryable whether the same request may succeed later
   * @param retryAfter the server's {@code Retry-After}, or {@code null}
   * @param cause the cause, or {@code null}
   */
  public LlmException(Kind kind, String message, int statusCode, String providerMessage,
      boolean retryable, Duration retryAfter, Throwable cause) {
    this(kind, message, statusCode, providerMessage, null, retryable, retryAfter, cause);
  }

  /**
   * A failure with the provider's error code.
   *
   * @param kind what kind
   * @param message a message for people (never contains a secret)
   * @param statusCode the HTTP status, or 0
   * @param providerMessage the provider's error message, or {@code null}
   * @param providerCode the provider's error code as text (such as
   *     {@code context_length_exceeded} or {@code 429}), or {@code null}
   * @param retryable whether the same request may succeed later
   * @param retryAfter the server's {@code Retry-After}, or {@code null}
   * @param cause the cause, or {@code null}
   */
  public LlmException(Kind kind, String message, int statusCode, String providerMessage,
      String providerCode, boolean retryable, Duration retryAfter, Throwable cause) {
    this(kind, message, statusCode, providerMessage, providerCode, null, retryable, retryAfter,
        cause);
  }

  /**
   * A failure with the provider's error code and type.
   *
   * @param kind what kind
   * @param message a message for people (never contains a secret)
   * @param statusCode the HTTP status, or 0
   * @param providerMessage the provider's error message, or {@code null}
   * @param providerCode the provider's error code as text, or {@code null}
   * @param providerType the provider's error type (such as {@code overloaded_error} or
   *     {@code invalid_request_error}), or {@code null}
   * @param retryable whether the same request may succeed later
   * @param retryAfter the server's {@code Retry-After}, or {@code null}
   * @param cause the cause, or {@code null}
   */
  public LlmException(Kind kind, String message, int statusCode, String providerMessage,
      String providerCode, String providerType, boolean retryable, Duration retryAfter,
      Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.statusCode = statusCode;
    this.providerMessage = providerMessage;
    this.providerCode = providerCode;
    this.providerType = providerType;
    this.retryable = retryable;
    this.retryAfter = retryAfter;
  }

  /** A failure with no HTTP status, not retryable. */
  public LlmException(Kind kind, String message) {
    this(kind, message, 0, null, false, null, null);
  }

  /** What kind of failure. */
  public Kind kind() {
    return kind;
  }

  /** The HTTP status, or 0. */
  public int statusCode() {
    return statusCode;
  }

  /** The provider's error message, or {@code null}. */
  public String providerMessage() {
    return providerMessage;
  }

  /**
   * The provider's error code as text (OpenAI's {@code error.code}, such as
   * {@code context_length_exceeded}; a number as its digits), or {@code null}.
   */
  public String providerCode() {
    return providerCode;
  }

  /**
   * The provider's error type (OpenAI's and Anthropic's {@code error.type}, such as
   * {@code server_error} or {@code overloaded_error}), or {@code null}.
   */
  public String providerType() {
    return providerType;
  }

  /** Whether the same request may succeed later. */
  public boolean isRetryable() {
    return retryable;
  }

  /** The server's {@code Retry-After}, if it sent one. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
