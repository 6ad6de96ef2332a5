package dev.gadget.core.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The compatibility kit every transport passes: the in-memory one in core and the WebSocket one.
 * Extend it and provide servers and clients that reach each other; published in the gadget-core
 * test-jar.
 */
public abstract class TransportContract {
  protected static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  protected static final Duration WAIT = Duration.ofSeconds(10);

  /** A new server, not started, reachable by {@link #newClient()} once started. */
  protected abstract TransportServer newServer();

  /** A new client that connects to the server last returned by {@link #newServer()}. */
  protected abstract TransportClient newClient();

  /** Cuts every open connection as a network failure would (no DISCONNECT packet). */
  protected abstract void severAll();

  protected TransportServer server;
  protected final List<TransportClient> clients = Collections.synchronizedList(new ArrayList<>());
  protected final Acceptor acceptor = new Acceptor();

  @BeforeEach
  void startServer() {
    server = newServer();
    server.start(acceptor);
  }

  @AfterEach
  void stopAll() {
    for (TransportClient c : List.copyOf(clients)) {
      c.close();
    }
    server.close();
  }

  protected TransportClient client() {
    TransportClient c = newClient();
    clients.add(c);
    return c;
  }

  protected static JsonNode token(String t) {
    return JSON.objectNode().put("token", t);
  }

  protected static List<JsonNode> args(JsonNode... a) {
    return List.of(a);
  }

  protected static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  protected static <T> T take(BlockingQueue<T> q, String what) throws InterruptedException {
    T v = q.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    if (v == null) {
      throw new AssertionError("timed out waiting for " + what);
    }
    return v;
  }

  /** Accepts token "good" (principal "alice") and "bob"; refuses everything else. */
  protected static final class Acceptor implements ConnectionAcceptor {
    public final BlockingQueue<Connection> connected = new LinkedBlockingQueue<>();
    public final BlockingQueue<String> disconnected = new LinkedBlockingQueue<>();
    public final AtomicInteger authCalls = new AtomicInteger();
    volatile java.util.function.Consumer<Connection> setup = c -> {};

    @Override
    public Object authenticate(String namespace, JsonNode auth) {
      authCalls.incrementAndGet();
      if (!namespace.equals("/") && !namespace.equals("/drone")) {
        throw new ConnectionRefusedException("Invalid namespace", null);
      }
      String t = auth.path("token").asText("");
      if (t.equals("good")) {
        return "alice";
      }
      if (t.equals("bob")) {
        return "bob";
      }
      throw new ConnectionRefusedException("unauthorized",
          JSON.objectNode().put("reason", "bad token"));
    }

    @Override
    public void onConnect(Connection connection, Object principal) {
      connection.on("echo", (a, ack) -> {
        if (ack != null) {
          ack.send(a);
        } else {
          connection.emit("echoed", a);
        }
      });
      connection.on("whoami", (a, ack) -> ack.send(List.of(TextNode.valueOf((String) principal))));
      setup.accept(connection);
      connected.add(connection);
    }

    @Override
    public void onDisconnect(Connection connection, Object principal, String reason) {
      disconnected.add(connection.id());
    }
  }

  /** Records client-side lifecycle events. */
  protected static final class Events implements TransportClient.ClientListener {
    public final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    public volatile TransportException refused;

    @Override
    public void onConnect(Connection connection) {
      events.add("connect");
    }

    @Override
    public void onConnectError(Connection connection, TransportException error) {
      refused = error;
      events.add("error:" + error.getMessage());
    }

    @Override
    public void onDisconnect(Connection connection, String reason, boolean willReconnect) {
      events.add("disconnect:" + willReconnect);
    }
  }

  @Nested
  class Handshake {
    @Test
    void acceptsAValidTokenAndHandsThePrincipalOver() throws Exception {
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      assertThat(take(events.events, "connect")).isEqualTo("connect");
      assertThat(c.isConnected()).isTrue();
      List<JsonNode> reply = c.emitWithAck("whoami", List.of(), WAIT).get(10, TimeUnit.SECONDS);
      assertThat(reply).containsExactly(TextNode.valueOf("alice"));
      Connection serverSide = take(acceptor.connected, "server connection");
      assertThat(serverSide.namespace()).isEqualTo("/");
    }

    @Test
    void refusesABadTokenWithMessageAndDataAndKeepsServingOthers() throws Exception {
      Events bad = new Events();
      client().connect("/", () -> token("wrong"), bad);
      assertThat(take(bad.events, "refusal")).isEqualTo("error:unauthorized");
      assertThat(bad.refused.data()).isNotNull();
      assertThat(bad.refused.data().toString()).contains("bad token");

      Events good = new Events();
      client().connect("/", () -> token("good"), good);
      assertThat(take(good.events, "connect")).isEqualTo("connect");
    }

    @Test
    void refusesAnUnknownNamespace() throws Exception {
      Events events = new Events();
      client().connect("/nope", () -> token("good"), events);
      assertThat(take(events.events, "refusal")).startsWith("error:");
    }
  }

  @Nested
  class Events_ {
    @Test
    void aHandlerRegisteredInSetupHearsTheGreetingSentAsTheServerAccepts() throws Exception {
      acceptor.setup = conn -> conn.emit("hello", args(JSON.textNode("first")));
      for (int i = 0; i < 20; i++) {
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        Events events = new Events();
        TransportClient client = client();
        client.connect("/", () -> token("good"), events,
            c -> c.on("hello", (a, ack) -> heard.add(a.get(0).asText())));
        assertThat(take(heard, "the greeting of connection " + i)).isEqualTo("first");
        take(acceptor.connected, "server connection " + i);
        client.close();
      }
    }

    @Test
    void deliversEventsInOrderBothWays() throws Exception {
      BlockingQueue<Integer> atServer = new LinkedBlockingQueue<>();
      acceptor.setup = conn -> conn.on("n", (a, ack) -> atServer.add(a.get(0).asInt()));
      Events events = new Events();
      BlockingQueue<Integer> atClient = new LinkedBlockingQueue<>();
      Connection c = client().connect("/", () -> token("good"), events);
      c.on("n", (a, ack) -> atClient.add(a.get(0).asInt()));
      take(events.events, "connect");
      Connection s = take(acceptor.connected, "server connection");
      for (int i = 0; i < 500; i++) {
        c.emit("n", args(JSON.numberNode(i)));
        s.emit("n", args(JSON.numberNode(i)));
      }
      for (int i = 0; i < 500; i++) {
        assertThat(take(atServer, "server event " + i)).isEqualTo(i);
        assertThat(take(atClient, "client event " + i)).isEqualTo(i);
      }
    }

    @Test
    void nonBlockingAndOrdinaryHandlersInterleavedKeepTheConnectionsOrder() throws Exception {
      BlockingQueue<Integer> atServer = new LinkedBlockingQueue<>();
      acceptor.setup = conn -> {
        conn.on("fast", EventHandler.nonBlocking((a, ack) -> atServer.add(a.get(0).asInt())));
        conn.on("slow", (a, ack) -> atServer.add(a.get(0).asInt()));
      };
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      take(events.events, "connect");
      take(acceptor.connected, "server connection");
      for (int i = 0; i < 2_000; i++) {
        c.emit(i % 3 == 0 ? "slow" : "fast", args(JSON.numberNode(i)));
      }
      for (int i = 0; i < 2_000; i++) {
        assertThat(take(atServer, "server event " + i)).isEqualTo(i);
      }
    }

    @Test
    void acksCarryArgumentsBothWays() throws Exception {
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      take(events.events, "connect");
      ObjectNode payload = JSON.objectNode().put("text", "héllo 漢字 😀").putNull("none");
      payload.putArray("list").add(1).add(true);
      assertThat(c.emitWithAck("echo", args(payload, JSON.numberNode(7)), WAIT)
          .get(10, TimeUnit.SECONDS)).containsExactly(payload, JSON.numberNode(7));

      Connection s = take(acceptor.connected, "server connection");
      c.on("ask", (a, ack) -> ack.send(args(TextNode.valueOf("answer:" + a.get(0).asText()))));
      assertThat(s.emitWithAck("ask", args(TextNode.valueOf("q")), WAIT).get(10, TimeUnit.SECONDS))
          .containsExactly(TextNode.valueOf("answer:q"));
    }

    @Test
    void carriesBinaryArguments() throws Exception {
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      take(events.events, "connect");
      byte[] bytes = new byte[3000];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) i;
      }
      ObjectNode wrapped = JSON.objectNode();
      wrapped.set("blob", BinaryNode.valueOf(bytes));
      List<JsonNode> back = c.emitWithAck("echo", args(BinaryNode.valueOf(bytes), wrapped), WAIT)
          .get(10, TimeUnit.SECONDS);
      assertThat(back.get(0).binaryValue()).isEqualTo(bytes);
      assertThat(back.get(1).get("blob").binaryValue()).isEqualTo(bytes);
    }

    @Test
    void anAckThatNeverComesTimesOut() throws Exception {
      acceptor.setup = conn -> conn.on("silent", (a, ack) -> { });
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      take(events.events, "connect");
      CompletableFuture<List<JsonNode>> f =
          c.emitWithAck("silent", List.of(), Duration.ofMillis(200));
      assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TransportException.class);
    }

    @Test
    void aThrowingHandlerDoesNotBreakTheConnection() throws Exception {
      acceptor.setup = conn -> conn.on("boom", (a, ack) -> {
        throw new IllegalStateException("handler bug");
      });
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      take(events.events, "connect");
      c.emit("boom", List.of());
      assertThat(c.emitWithAck("echo", args(TextNode.valueOf("still here")), WAIT)
          .get(10, TimeUnit.SECONDS)).containsExactly(TextNode.valueOf("still here"));
    }

    @Test
    void aSlowHandlerStallsOnlyItsOwnConnection() throws Exception {
      CountDownLatch release = new CountDownLatch(1);
      acceptor.setup = conn -> conn.on("slow", (a, ack) -> {
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      Events e1 = new Events();
      Connection slow = client().connect("/", () -> token("good"), e1);
      take(e1.events, "connect");
      slow.emit("slow", List.of());
      try {
        Events e2 = new Events();
        Connection other = client().connect("/", () -> token("bob"), e2);
        take(e2.events, "connect");
        assertThat(other.emitWithAck("whoami", List.of(), WAIT).get(10, TimeUnit.SECONDS))
            .containsExactly(TextNode.valueOf("bob"));
      } finally {
        release.countDown();
      }
    }
  }

  @Nested
  class Lifecycle {
    @Test
    void serverDisconnectEndsTheClientWithoutReconnecting() throws Exception {
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      take(events.events, "connect");
      take(acceptor.connected, "server connection").disconnect();
      assertThat(take(events.events, "disconnect")).isEqualTo("disconnect:false");
      await("client sees the disconnect", () -> !c.isConnected());
    }

    @Test
    void clientDisconnectIsSeenByTheServer() throws Exception {
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      take(events.events, "connect");
      Connection s = take(acceptor.connected, "server connection");
      c.disconnect();
      assertThat(take(acceptor.disconnected, "server-side disconnect")).isEqualTo(s.id());
      await("server side closed", () -> !s.isConnected());
    }

    @Test
    void reconnectsAfterANetworkFailureReauthenticatesAndFlushesTheBuffer() throws Exception {
      AtomicInteger authAsked = new AtomicInteger();
      BlockingQueue<String> atServer = new LinkedBlockingQueue<>();
      acceptor.setup = conn -> conn.on("note", (a, ack) -> atServer.add(a.get(0).asText()));
      Events events = new Events();
      Connection c = client().connect("/", () -> {
        authAsked.incrementAndGet();
        return token("good");
      }, events);
      take(events.events, "connect");
      take(acceptor.connected, "first server connection");

      severAll();
      assertThat(take(events.events, "disconnect")).isEqualTo("disconnect:true");
      c.emit("note", args(TextNode.valueOf("sent while down")));
      assertThat(take(events.events, "reconnect")).isEqualTo("connect");
      assertThat(authAsked.get()).isGreaterThanOrEqualTo(2);
      assertThat(take(atServer, "buffered event")).isEqualTo("sent while down");
      take(acceptor.connected, "second server connection");
    }

    @Test
    void reconnectsToARestartedServer() throws Exception {
      Events events = new Events();
      Connection c = client().connect("/", () -> token("good"), events);
      take(events.events, "connect");
      server.close();
      assertThat(take(events.events, "disconnect")).isEqualTo("disconnect:true");
      server = newServer();
      server.start(acceptor);
      assertThat(take(events.events, "reconnect")).isEqualTo("connect");
      assertThat(c.emitWithAck("whoami", List.of(), WAIT).get(10, TimeUnit.SECONDS))
          .containsExactly(TextNode.valueOf("alice"));
    }
  }
}
