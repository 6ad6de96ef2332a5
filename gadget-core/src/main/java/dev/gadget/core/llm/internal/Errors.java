package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmException;
import java.time.Duration;

/** Builds the {@link LlmException}s the clients raise, with consistent messages. */
public final class Errors {
  private Errors() {}

  /** Whether an HTTP status is worth retrying: 408, 409 (a conflict), 429 and 5xx. */
  public static boolean retryableStatus(int status) {
    return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
  }

  /** An HTTP error status before the stream started. */
  public static LlmException http(String api, int status, ProviderError error,
      Duration retryAfter) {
    return http(api, status, error, retryAfter, retryableStatus(status));
  }

  /**
   * An HTTP error status before the stream started, retried or not as {@code retryable} says
   * (the server's {@code x-should-retry}, which the official SDKs follow, else the status).
   */
  public static LlmException http(String api, int status, ProviderError error,
      Duration retryAfter, boolean retryable) {
    String msg = api + " answered HTTP " + status
        + (error == null ? "" : ": " + error.describe());
    return new LlmException(LlmException.Kind.HTTP, msg, status,
        error == null ? null : error.message(), error == null ? null : error.code(),
        error == null ? null : error.type(), retryable, retryAfter, null);
  }

  /**
   * An error the server reported inside a stream that had started; retryable when its code is a
   * retryable HTTP status.
   */
  public static LlmException midStream(String api, ProviderError error) {
    int status = error.codeAsStatus();
    return midStream(api, error, status != 0 && retryableStatus(status));
  }

  /** An error the server reported inside a stream that had started. */
  public static LlmException midStream(String api, ProviderError error, boolean retryable) {
    return new LlmException(LlmException.Kind.STREAM,
        api + " reported an error mid-stream: " + error.describe(), 0, error.message(),
        error.code(), error.type(), retryable, null, null);
  }

  /** The stream ended or broke in a way the protocol does not allow. */
  public static LlmException protocol(String message) {
    return new LlmException(LlmException.Kind.PROTOCOL, message);
  }
}
