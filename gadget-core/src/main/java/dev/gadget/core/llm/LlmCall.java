package dev.gadget.core.llm;

import java.util.concurrent.CompletableFuture;

/** A call in flight. Thread-safe. */
public interface LlmCall {
  /**
   * Cancels the call: closes the HTTP response body so the server stops generating, and ends
   * the call with a {@link LlmException.Kind#CANCELLED} error unless it already ended. Calling it
   * again, or after the end, does nothing.
   */
  void cancel();

  /**
   * Completes with the {@link LlmCompletion} after {@link LlmListener#onComplete}, or
   * exceptionally with the {@link LlmException} after {@link LlmListener#onError}.
   */
  CompletableFuture<LlmCompletion> result();
}
