package dev.gadget.examples;

import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmRequest;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A client whose models have the context window the drone was told ({@code --context-window}),
 * whatever the provider would say; everything else is the wrapped client's. A work order whose
 * parameters name a window still wins (the agent loop asks the client only when they do not).
 */
final class FixedWindowClient implements LlmClient {
  private final LlmClient client;
  private final int window;

  FixedWindowClient(LlmClient client, int window) {
    this.client = Objects.requireNonNull(client, "client");
    if (window < 1) {
      throw new IllegalArgumentException("a context window is positive");
    }
    this.window = window;
  }

  /** The client it wraps. */
  LlmClient client() {
    return client;
  }

  @Override
  public LlmCall stream(LlmRequest request, LlmListener listener) {
    return client.stream(request, listener);
  }

  @Override
  public OptionalInt contextWindow(String model) {
    return OptionalInt.of(window);
  }

  @Override
  public int maxTools() {
    return client.maxTools();
  }

  @Override
  public dev.gadget.core.llm.ToolLoading toolLoading() {
    return client.toolLoading();
  }

  @Override
  public String toString() {
    return client + " with a " + window + "-token window";
  }
}
