package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionAcceptor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, the transport's part: peers that never read, never finish the handshake, send
 * frames that break RFC 6455 or messages over the limit. Each test runs a real server on
 * 127.0.0.1 and talks to it over bare TCP sockets ({@link WireSocket}), watching the log as
 * written ({@link LogCapture}).
 */
class HostilePeersTest {
  private final RecordingAcceptor app = new RecordingAcceptor();
  private WebSocketTransportServer server;
  private final List<AutoCloseable> open = new ArrayList<>();

  private WebSocketTransportServer start(WebSocketTransportServer.Builder builder) {
    server = builder.pingInterval(Duration.ofSeconds(30)).pingTimeout(Duration.ofSeconds(30))
        .build();
    server.start(app);
    return server;
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private <T extends AutoCloseable> T keep(T closeable) {
    open.add(closeable);
    return closeable;
  }

  /** A bare socket that has joined "/" (OPEN and the CONNECT reply read). */
  private WireSocket joined() throws Exception {
    WireSocket w = keep(WireSocket.open(server.port()));
    assertThat(w.readText()).startsWith("0{");
    w.text("40{\"token\":\"good\"}");
    assertThat(w.readText()).startsWith("40{\"sid\":");
    app.expect("connect / ");
    return w;
  }

  /** A well-behaved client (Java-WebSocket) that has joined "/". */
  private RawClient bystander() throws Exception {
    RawClient c = RawClient.open(server);
    open.add(c::close);
    assertThat(c.text()).startsWith("0{");
    c.send("40{\"token\":\"good\"}");
    assertThat(c.text()).startsWith("40{\"sid\":");
    app.expect("connect / ");
    return c;
  }

  private static void echoes(RawClient c, String text) throws Exception {
    c.send("42[\"echo\",\"" + text + "\"]");
    assertThat(c.text()).isEqualTo("42[\"echoed\",\"" + text + "\"]");
  }

  @Test
  void anUnmaskedFrameIsRefusedWith1002() throws Exception {
    start(WebSocketTransportServer.builder());
    WireSocket w = keep(WireSocket.open(server.port()));
    assertThat(w.readText()).startsWith("0{");
    w.frame(0x81, "40{\"token\":\"good\"}".getBytes(StandardCharsets.UTF_8), false);
    WireSocket.Frame close = w.readUntilClose();
    assertThat(close.closeCode()).isEqualTo(1002);
    assertThat(close.closeReason())
        .isEqualTo("frames from a client must be masked (RFC 6455, section 5.1)");
    assertThat(w.closedByServer()).isTrue();
    assertThat(app.records).as("the CONNECT in the unmasked frame was not read").isEmpty();
  }

  @Test
  void anOversizedMessageIsClosedWith1009AndTheLimitAsTheReasonLoggedOnce() throws Exception {
    start(WebSocketTransportServer.builder().maxPayload(1000));
    RawClient bystander = bystander();
    try (LogCapture log = LogCapture.start()) {
      for (int i = 0; i < 3; i++) {
        WireSocket w = joined();
        w.text("42[\"echo\",\"" + "x".repeat(1000) + "\"]");
        WireSocket.Frame close = w.readUntilClose();
        assertThat(close.closeCode()).isEqualTo(1009);
        assertThat(close.closeReason()).isEqualTo("message too large: the limit is 1000 bytes");
        assertThat(app.expect("disconnect / ")).endsWith("transport error");
      }
      assertThat(log.at("WARN", "dev.gadget")).singleElement().asString()
          .contains("Message over the size limit from 127.0.0.1")
          .contains("message too large: the limit is 1000 bytes");
      assertThat(log.stackTraceLines()).isEmpty();
    }
    echoes(bystander, "still here");
  }

  @Test
  void brokenFramesAreLoggedOncePerPeerAndKindWithoutStackTraces() throws Exception {
    start(WebSocketTransportServer.builder().maxPayload(1000));
    RawClient bystander = bystander();
    byte[] notUtf8 = {'4', '2', (byte) 0xC3, (byte) 0x28};
    byte[] closeNotUtf8 = {0x03, (byte) 0xE8, (byte) 0xFF, (byte) 0xFE};
    try (LogCapture log = LogCapture.start()) {
      for (int i = 0; i < 100; i++) {
        try (WireSocket w = WireSocket.open(server.port())) {
          w.readText();
          switch (i % 5) {
            case 0 -> w.frame(0x81, notUtf8, true);
            case 1 -> w.frame(0x88, closeNotUtf8, true);
            case 2 -> w.frame(0xC1, "3".getBytes(StandardCharsets.UTF_8), true); // RSV1
            case 3 -> w.frame(0x80, "3".getBytes(StandardCharsets.UTF_8), true); // stray continuation
            default -> w.text("4garbage");
          }
          int expected = i % 5 < 2 ? 1007 : 1002;
          assertThat(w.readUntilClose().closeCode()).as("case %d", i % 5).isEqualTo(expected);
          assertThat(w.closedByServer()).isTrue();
        }
      }
      await("every refused session is gone", () -> server.sessionCount() == 1);
      List<String> warnings = log.at("WARN", "dev.gadget");
      assertThat(warnings).hasSize(3);
      assertThat(warnings).anySatisfy(l -> assertThat(l).contains("Invalid UTF-8 from 127.0.0.1"));
      assertThat(warnings).anySatisfy(l -> assertThat(l).contains("Invalid WebSocket frame from 127.0.0.1"));
      assertThat(warnings).anySatisfy(l ->
          assertThat(l).contains("Invalid Engine.IO or Socket.IO packet from 127.0.0.1"));
      assertThat(log.lines()).noneMatch(l -> l.contains(" ERROR "));
      assertThat(log.stackTraceLines()).isEmpty();
      assertThat(log.total()).as("a few lines per refused connection at most").isLessThan(400);
    }
    echoes(bystander, "unaffected");
  }

  @Test
  void aReaderThatNeverReadsIsCutOffBeforeTheServerHoldsMoreThanTheBound() throws Exception {
    long bound = 1_000_000;
    // The requests (18 MB) fit the bound on unhandled requests: only the unread answers can
    // end this connection, however far the reading thread gets ahead of the handlers.
    start(WebSocketTransportServer.builder().maxPayload(200_000).maxQueuedBytes(bound)
        .maxUnhandledBytes(50_000_000));
    RawClient bystander = bystander();
    String big = "y".repeat(60_000);
    int requests = 300; // 18 MB of answers: far more than the bound and the kernel's buffers
    try (LogCapture log = LogCapture.start()) {
      // A small receive buffer so the kernel holds little. The client sends all its requests
      // at once and then never reads (until it is cut off), nor sends anything more.
      WireSocket slow = keep(WireSocket.tcp(server.port(), 4096));
      slow.upgrade();
      slow.text("40{\"token\":\"good\"}");
      for (int i = 0; i < requests; i++) {
        slow.text("42[\"echo\",\"" + big + "\"]");
      }
      echoes(bystander, "during");
      long largest = 0;
      String cutOff = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (cutOff == null && System.nanoTime() < deadline) {
        largest = Math.max(largest, server.largestOutQueue());
        cutOff = poll();
      }
      System.out.printf("slow reader: %d echoes of %d bytes asked, largest output queue %d bytes"
          + " (bound %d)%n", requests, big.length(), largest, bound);
      assertThat(cutOff).as("the slow reader's connection closed").isNotNull();
      assertThat(cutOff).endsWith("transport error");
      assertThat(largest).as("bytes the server held for the slow reader").isLessThanOrEqualTo(bound);
      // Reading now, the peer finds the reason after what it had not read.
      WireSocket.Frame close = slow.readUntilClose();
      assertThat(close.closeCode()).isEqualTo(1008);
      assertThat(close.closeReason()).isEqualTo("too much unread data: the limit is 1000000 bytes");
      assertThat(log.at("WARN", "dev.gadget")).singleElement().asString()
          .contains("Too much unread data from 127.0.0.1");
    }
    echoes(bystander, "after");
  }

  @Test
  void aPeerThatSendsFasterThanItsRequestsAreHandledIsCutOffAtTheBound() throws Exception {
    long bound = 1_000_000;
    CountDownLatch release = new CountDownLatch(1);
    server = WebSocketTransportServer.builder().maxPayload(200_000).maxUnhandledBytes(bound)
        .pingInterval(Duration.ofSeconds(30)).pingTimeout(Duration.ofSeconds(30)).build();
    BlockingQueue<String> ends = new LinkedBlockingQueue<>();
    server.start(new ConnectionAcceptor() {
      @Override
      public Object authenticate(String namespace, JsonNode auth) {
        return auth.path("who").asText("anyone");
      }

      @Override
      public void onConnect(Connection c, Object principal) {
        // Each request waits until the test lets it go: the peer's requests pile up.
        c.on("slow", (args, ack) -> {
          try {
            release.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        c.on("ping", (args, ack) -> ack.send(List.of()));
      }

      @Override
      public void onDisconnect(Connection c, Object principal, String reason) {
        ends.add(principal + ": " + reason);
      }
    });
    String big = "z".repeat(60_000);
    try (LogCapture log = LogCapture.start()) {
      WireSocket flood = keep(WireSocket.open(server.port()));
      flood.readText();
      flood.text("40{\"who\":\"flood\"}");
      assertThat(flood.readText()).startsWith("40{\"sid\":");
      int sent = 0;
      try {
        for (; sent < 100; sent++) { // 6 MB of requests, six times the bound
          flood.text("42[\"slow\",\"" + big + "\"]");
        }
      } catch (IOException closedMeanwhile) {
        // the server may close the connection while the peer is still sending
      }
      WireSocket.Frame close = flood.readUntilClose();
      assertThat(close.closeCode()).isEqualTo(1008);
      assertThat(close.closeReason())
          .isEqualTo("too many requests waiting: the limit is 1000000 bytes");
      assertThat(log.at("WARN", "dev.gadget")).singleElement().asString()
          .contains("Too many requests waiting from 127.0.0.1");
      // Another peer is served meanwhile.
      try (WireSocket other = WireSocket.open(server.port())) {
        other.readText();
        other.text("40");
        assertThat(other.readText()).startsWith("40{\"sid\":");
        other.text("421[\"ping\"]");
        assertThat(other.readText()).isEqualTo("431[]");
      }
      System.out.printf("flood: %d requests of %d bytes sent, cut off at the bound of %d bytes%n",
          sent, big.length(), bound);
    } finally {
      release.countDown();
    }
    // After the requests it had taken in (a connection's events and its end come in order).
    // (the other peer's end may come first: it does not wait behind a held handler)
    String end = ends.poll(30, TimeUnit.SECONDS);
    if (end != null && end.startsWith("anyone: ")) {
      end = ends.poll(30, TimeUnit.SECONDS);
    }
    assertThat(end).isEqualTo("flood: transport error");
  }

  @Test
  void aRefusedHandshakeIsAnsweredAndClosedAtOnce() throws Exception {
    start(WebSocketTransportServer.builder().handshakeTimeout(Duration.ofSeconds(60)));
    String wrongPath = WireSocket.upgradeRequest(server.port()).replace(WireSocket.PATH, "/other");
    String hugeHead = WireSocket.upgradeRequest(server.port())
        .replace("\r\n\r\n", "\r\nX-Padding: " + "p".repeat(17_000) + "\r\n\r\n");
    for (String request : List.of(wrongPath, hugeHead)) {
      try (WireSocket w = WireSocket.tcp(server.port(), 0)) {
        w.raw(request.getBytes(StandardCharsets.US_ASCII));
        assertThat(w.readHead()).startsWith("HTTP/1.1 404");
        // within the socket's 10 s, long before the 60 s handshake timeout
        assertThat(w.closedByServer()).as("closed after the answer").isTrue();
      }
    }
    await("the server holds no socket", () -> server.socketCount() == 0);
  }

  @Test
  void framesRightBehindTheUpgradeRequestAreRead() throws Exception {
    start(WebSocketTransportServer.builder());
    try (WireSocket w = WireSocket.tcp(server.port(), 0)) {
      String big = "b".repeat(20_000); // more than the request head may be, in the same write
      w.raw(concat(WireSocket.upgradeRequest(server.port()).getBytes(StandardCharsets.US_ASCII),
          WireSocket.encode(0x81, "40{\"token\":\"good\"}".getBytes(StandardCharsets.UTF_8),
              new byte[] {1, 2, 3, 4}),
          WireSocket.encode(0x81, ("42[\"echo\",\"" + big + "\"]").getBytes(StandardCharsets.UTF_8),
              new byte[] {5, 6, 7, 8})));
      assertThat(w.readHead()).startsWith("HTTP/1.1 101");
      assertThat(w.readText()).startsWith("0{");
      assertThat(w.readText()).startsWith("40{\"sid\":");
      assertThat(w.readText()).isEqualTo("42[\"echoed\",\"" + big + "\"]");
    }
  }

  @Test
  void aThrowingHandlerIsLoggedOncePerServerNotOncePerConnection() throws Exception {
    server = WebSocketTransportServer.builder().build();
    server.start(new ConnectionAcceptor() {
      @Override
      public Object authenticate(String namespace, JsonNode auth) {
        return "anyone";
      }

      @Override
      public void onConnect(Connection c, Object principal) {
        c.on("boom", (args, ack) -> {
          throw new IllegalStateException("a bug in the handler");
        });
        c.on("ping", (args, ack) -> ack.send(List.of()));
      }

      @Override
      public void onDisconnect(Connection c, Object principal, String reason) {}
    });
    try (LogCapture log = LogCapture.start()) {
      for (int i = 0; i < 5; i++) {
        try (WireSocket w = WireSocket.open(server.port())) {
          w.readText();
          w.text("40");
          assertThat(w.readText()).startsWith("40{\"sid\":");
          w.text("42[\"boom\"]");
          w.text("42[\"boom\"]");
          w.text("421[\"ping\"]"); // handled after both: the answer says they were
          assertThat(w.readText()).isEqualTo("431[]");
        }
      }
      assertThat(log.at("WARN", "dev.gadget")).singleElement().asString()
          .contains("Handler for event 'boom' on / threw");
      assertThat(log.lines()).filteredOn(l -> l.startsWith("java.lang.IllegalStateException"))
          .as("one stack trace, for the developer").hasSize(1);
      assertThat(log.lines()).filteredOn(l -> l.contains(" DEBUG ") && l.contains("'boom'"))
          .hasSize(9).allSatisfy(l -> assertThat(l).endsWith(
              "threw: java.lang.IllegalStateException: a bug in the handler"));
    }
  }

  private static byte[] concat(byte[]... parts) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** The next "disconnect" record of the app, if one is there now. */
  private String poll() {
    String r;
    while ((r = app.records.poll()) != null) {
      if (r.startsWith("disconnect")) {
        return r;
      }
    }
    return null;
  }

  @Test
  void halfOpenConnectionsAreAllClosedWithinTheHandshakeTimeout() throws Exception {
    Duration timeout = Duration.ofSeconds(2);
    start(WebSocketTransportServer.builder().handshakeTimeout(timeout));
    int count = 1000;
    ByteBuffer partial = ByteBuffer.wrap(("GET " + WireSocket.PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    long[] openedAt = new long[count];
    long[] closedAt = new long[count];
    try (LogCapture log = LogCapture.start(); Selector selector = Selector.open()) {
      long begin = System.nanoTime();
      for (int i = 0; i < count; i++) {
        openedAt[i] = System.nanoTime(); // before the server can have accepted it
        SocketChannel s = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()));
        open.add(s);
        if (i % 2 == 1) {
          s.write(partial.duplicate()); // half an upgrade request
        }
        s.configureBlocking(false);
        s.register(selector, SelectionKey.OP_READ, i);
      }
      System.out.printf("half-open: %d connections opened in %d ms%n", count,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
      // A proper client still gets in meanwhile.
      bystander();
      // Every connection is read until the server closes it, noting when.
      long slack = TimeUnit.SECONDS.toNanos(2);
      long deadline = openedAt[count - 1] + timeout.toNanos() + slack;
      ByteBuffer sink = ByteBuffer.allocate(1024);
      int closed = 0;
      while (closed < count && System.nanoTime() < deadline) {
        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        for (SelectionKey key : selector.selectedKeys()) {
          int i = (Integer) key.attachment();
          int n;
          try {
            n = ((SocketChannel) key.channel()).read(sink.clear());
          } catch (IOException e) {
            n = -1; // reset
          }
          if (n < 0) {
            closedAt[i] = System.nanoTime();
            key.cancel();
            closed++;
          }
        }
        selector.selectedKeys().clear();
      }
      long shortest = Long.MAX_VALUE;
      long longest = 0;
      for (int i = 0; i < count; i++) {
        if (closedAt[i] == 0) {
          fail("connection %d (%s) still open %d ms after it was opened", i,
              i % 2 == 1 ? "half a request" : "nothing sent",
              TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openedAt[i]));
        }
        shortest = Math.min(shortest, closedAt[i] - openedAt[i]);
        longest = Math.max(longest, closedAt[i] - openedAt[i]);
      }
      System.out.printf("half-open: all %d closed, %d to %d ms after opening (timeout %d ms)%n",
          count, TimeUnit.NANOSECONDS.toMillis(shortest), TimeUnit.NANOSECONDS.toMillis(longest),
          timeout.toMillis());
      assertThat(shortest).as("not closed before the timeout").isGreaterThanOrEqualTo(timeout.toNanos());
      assertThat(longest).as("closed within the timeout, give or take a timer's slack")
          .isLessThanOrEqualTo(timeout.toNanos() + slack);
      await("the server holds only the bystander's socket", () -> server.socketCount() == 1);
      assertThat(log.at("WARN", "dev.gadget")).singleElement().asString()
          .contains("No WebSocket handshake in time from 127.0.0.1");
      assertThat(log.stackTraceLines()).isEmpty();
    }
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }
}
