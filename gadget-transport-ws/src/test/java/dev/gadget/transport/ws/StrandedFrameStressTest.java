package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.transport.ws.internal.WriteWatch;
import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * Java-WebSocket 1.6.0 can strand a frame queued from a thread other than its selector (see
 * {@link WriteWatch}): these runs send from many threads at once and require every answer to
 * arrive. A stranded answer would wait for the next frame on its connection, which in a
 * one-in-flight run never comes, so the run stalls. The stall bound is generous (a loaded
 * machine must not fail it); the 100 ms bound is the benchmark's ({@link RoundTripBenchmark}).
 */
class StrandedFrameStressTest {
  private static final long STALL_MILLIS = 5_000;

  /** Answers every {@code echo} with its arguments, from the handler pool. */
  static final class EchoAcceptor implements ConnectionAcceptor {
    @Override
    public Object authenticate(String namespace, JsonNode auth) {
      return "stress";
    }

    @Override
    public void onConnect(Connection connection, Object principal) {
      connection.on("echo", (args, ack) -> ack.send(args));
    }

    @Override
    public void onDisconnect(Connection connection, Object principal, String reason) {}
  }

  @Test
  void everyAckLeavesTheGadgetServerUnderManySenders() throws Exception {
    WebSocketTransportServer server = WebSocketTransportServer.builder().build();
    server.start(new EchoAcceptor());
    try {
      URI uri = URI.create("ws://127.0.0.1:" + server.port() + WireSocket.PATH);
      EchoStress.Result r = EchoStress.run(uri, EchoStress.SOCKET_IO, 16, 12_500, STALL_MILLIS);
      assertThat(r.stalled).as(r.table()).isNull();
      assertThat(r.count.get()).isEqualTo(200_000);
    } finally {
      server.close();
    }
  }

  @Test
  void theLibraryStrandsAFrameWhenItsRaceWindowIsWidened() throws Exception {
    try (RawEchoServer server = RawEchoServer.start(true, null)) {
      URI uri = URI.create("ws://127.0.0.1:" + server.getPort());
      EchoStress.Result r = EchoStress.run(uri, EchoStress.RAW, 4, 2_000, 2_000);
      assertThat(r.stalled).as("the unpatched path strands a frame: %s", r.table())
          .isNotNull().contains("had no answer");
    }
  }

  @Test
  void theWriteWatchDeliversEveryFrameThroughTheWidenedWindow() throws Exception {
    WriteWatch watch = new WriteWatch("stress-writewatch");
    try (RawEchoServer server = RawEchoServer.start(true, watch)) {
      URI uri = URI.create("ws://127.0.0.1:" + server.getPort());
      EchoStress.Result r = EchoStress.run(uri, EchoStress.RAW, 4, 2_000, STALL_MILLIS);
      assertThat(r.stalled).as(r.table()).isNull();
      assertThat(r.count.get()).isEqualTo(8_000);
      assertThat(watch.rescued()).as("frames the watch re-armed").isPositive();
    }
  }
}
