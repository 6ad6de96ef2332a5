package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.EventHandler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server writes a session's frames straight to its socket when nothing waits, holds what a
 * reading thread's handlers send until the read is handled, and leaves what the socket does not
 * take to the library's selector. A peer that does not read while it asks for 18 MB of answers
 * makes every one of those paths run (whole writes, partial writes, the rest written first,
 * the queue behind it, answers from the reading thread and from the handler pool): each answer
 * must arrive once, whole and in the order the requests were handled.
 */
class DirectWriteTest {
  private static final int REQUESTS = 300;
  private static final int PARTS = 3;
  private static final int PART_CHARS = 20_000;
  private WebSocketTransportServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest(name = "late answers from the reading thread: {0}")
  @ValueSource(booleans = {false, true})
  void answersToAPeerThatReadsLateArriveOnceWholeAndInOrder(boolean lateOnReadingThread)
      throws Exception {
    server = WebSocketTransportServer.builder().maxQueuedBytes(100_000_000)
        .pingInterval(Duration.ofSeconds(60)).pingTimeout(Duration.ofSeconds(60)).build();
    server.start(new ConnectionAcceptor() {
      @Override
      public Object authenticate(String namespace, JsonNode auth) {
        return "peer";
      }

      @Override
      public void onConnect(Connection c, Object principal) {
        // on the reading thread: held until the read is handled, then written
        c.on("burst", EventHandler.nonBlocking((args, ack) -> {
          int k = args.get(0).asInt();
          for (int j = 0; j < PARTS; j++) {
            c.emit("part", List.of(TextNode.valueOf(part(k, j))));
          }
        }));
        // on the handler pool (written at once, or queued behind what waits) or held as well
        EventHandler late = (args, ack) -> c.emit("late", args);
        c.on("late", lateOnReadingThread ? EventHandler.nonBlocking(late) : late);
      }

      @Override
      public void onDisconnect(Connection c, Object principal, String reason) {}
    });
    try (WireSocket w = WireSocket.tcp(server.port(), 4096)) {
      w.upgrade();
      assertThat(w.readText()).startsWith("0{");
      w.text("40{}");
      assertThat(w.readText()).startsWith("40{\"sid\":");
      for (int k = 0; k < REQUESTS; k++) {
        w.text("42[\"burst\"," + k + "]");
        w.text("42[\"late\"," + k + "]");
      }
      for (int k = 0; k < REQUESTS; k++) {
        for (int j = 0; j < PARTS; j++) {
          String text = w.readText();
          assertThat(text.equals("42[\"part\",\"" + part(k, j) + "\"]"))
              .as("part %d of answer %d, got %s...", j, k, text.substring(0, Math.min(40, text.length())))
              .isTrue();
        }
        assertThat(w.readText()).as("late answer %d", k).isEqualTo("42[\"late\"," + k + "]");
      }
    }
  }

  private static String part(int k, int j) {
    return k + "." + j + ":" + String.valueOf((char) ('a' + (k * PARTS + j) % 26)).repeat(PART_CHARS);
  }
}
