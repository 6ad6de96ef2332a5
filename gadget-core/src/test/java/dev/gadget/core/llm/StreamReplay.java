package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import dev.gadget.core.llm.RecordingListener.Outcome;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Plays one recorded reply through a client, as the clients' fixture tests do: the server sends
 * {@code body} in {@code delivery}'s pieces, the listener must keep its contract, the call's
 * result must match what the listener heard, and the client must not have retried.
 */
final class StreamReplay {
  /** What a play gave: its outcome and the listener that heard it. */
  record Played(Outcome outcome, RecordingListener listener) {}

  private StreamReplay() {}

  static Played play(LlmTestServer server, LlmClient client, LlmRequest request, String body,
      String contentType, Delivery delivery) {
    server.enqueue(body).delivery(delivery).header("Content-Type", contentType);
    RecordingListener listener = new RecordingListener();
    LlmCall call = client.stream(request, listener);
    Outcome outcome = listener.assertContract();
    if (outcome.error() == null) {
      assertThat(call.result()).succeedsWithin(5, TimeUnit.SECONDS).isEqualTo(outcome.completion());
    } else {
      assertThat(call.result()).failsWithin(5, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class).withCause(outcome.error());
    }
    assertThat(server.requestCount()).as("requests (never retried)").isEqualTo(1);
    return new Played(outcome, listener);
  }
}
