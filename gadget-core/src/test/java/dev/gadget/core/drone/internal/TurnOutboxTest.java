package dev.gadget.core.drone.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The drone sends again what the server asks for, from a seq or after a tool call, in order. */
class TurnOutboxTest {
  private final TurnOutbox outbox = new TurnOutbox();
  private final Recorder link = new Recorder();

  @Test
  void sendsAgainFromASeqAndFromAfterAToolCall() {
    text("t1", 0, "a");
    text("t1", 1, "b");
    outbox.send(link, "t1", 2, Protocol.TOOL_CALL, new Payloads.ToolCallEvent("t1", 2,
        new ToolCall("c1", "read_file", "{}", "x", null, null, null)));
    text("t1", 3, "c");
    text("t1", 4, "d");
    link.sent.clear();

    outbox.replay(link, new ResumePayloads.ResumeStream("t1", 1L, null));
    assertThat(link.sent).containsExactly("streamReplay t1 from 1 complete", "response 1",
        "toolCall 2", "response 3", "response 4");
  }

  @Test
  void afterACallItFollowsAndWithoutOneItStartsAtTheFirstEvent() {
    text("t1", 0, "a");
    outbox.send(link, "t1", 1, Protocol.TOOL_CALL, new Payloads.ToolCallEvent("t1", 1,
        new ToolCall("c1", "read_file", "{}", "x", null, null, null)));
    text("t1", 2, "b");
    link.sent.clear();
    outbox.replay(link, new ResumePayloads.ResumeStream("t1", null, "c1"));
    assertThat(link.sent).containsExactly("streamReplay t1 from 2 complete", "response 2");
    link.sent.clear();
    outbox.replay(link, new ResumePayloads.ResumeStream("t1", null, null));
    assertThat(link.sent).first().isEqualTo("streamReplay t1 from 0 complete");
    assertThat(link.sent).hasSize(4);
    link.sent.clear();
    outbox.replay(link, new ResumePayloads.ResumeStream("t1", null, "unknown"));
    assertThat(link.sent).first().isEqualTo("streamReplay t1 from 0 incomplete");
  }

  @Test
  void aNewTurnForgetsTheLastAndTheOldestGoPastTheBound() {
    text("t1", 0, "a");
    text("t2", 0, "x");
    link.sent.clear();
    outbox.replay(link, new ResumePayloads.ResumeStream("t1", 0L, null));
    assertThat(link.sent).as("not the turn it runs: nothing").isEmpty();

    String big = "y".repeat(1 << 20);
    for (int seq = 1; seq <= 20; seq++) {
      text("t2", seq, big);
    }
    link.sent.clear();
    outbox.replay(link, new ResumePayloads.ResumeStream("t2", 0L, null));
    assertThat(link.sent.get(0)).startsWith("streamReplay t2 from ").endsWith(" incomplete");
    assertThat(link.sent.size() - 1).as("about 16 MB kept").isBetween(14, 16);
    link.sent.clear();
    outbox.replay(link, new ResumePayloads.ResumeStream("t2", 19L, null));
    assertThat(link.sent).containsExactly("streamReplay t2 from 19 complete", "response 19",
        "response 20");
  }

  private void text(String turn, long seq, String data) {
    outbox.send(link, turn, seq, Protocol.RESPONSE, new Payloads.TextEvent(turn, seq, data, seq));
  }

  /** A connection that writes down what is sent on it. */
  private static final class Recorder implements Connection {
    final List<String> sent = new ArrayList<>();

    @Override
    public String id() {
      return "recorder";
    }

    @Override
    public String namespace() {
      return Protocol.DRONE_NAMESPACE;
    }

    @Override
    public void emit(String event, List<JsonNode> args) {
      JsonNode p = args.get(0);
      sent.add(event.equals(Protocol.STREAM_REPLAY)
          ? event + " " + p.get("turnId").asText() + " from " + p.get("fromSeq").asLong()
              + (p.get("complete").asBoolean() ? " complete" : " incomplete")
          : event + " " + p.get("seq").asLong());
    }

    @Override
    public CompletableFuture<List<JsonNode>> emitWithAck(String event, List<JsonNode> args,
        Duration timeout) {
      throw new UnsupportedOperationException("not used");
    }

    @Override
    public void on(String event, EventHandler handler) {}

    @Override
    public boolean isConnected() {
      return true;
    }

    @Override
    public void disconnect() {}
  }
}
