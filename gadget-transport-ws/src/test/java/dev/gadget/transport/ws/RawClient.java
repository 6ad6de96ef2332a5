package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.handshake.ServerHandshake;

/** A bare WebSocket that records every frame, for wire-level tests. */
final class RawClient extends WebSocketClient {
  final BlockingQueue<Object> frames = new LinkedBlockingQueue<>();
  final CompletableFuture<String> closed = new CompletableFuture<>();

  RawClient(URI uri) {
    super(uri);
    setConnectionLostTimeout(0);
  }

  static RawClient open(WebSocketTransportServer server) throws InterruptedException {
    RawClient c = new RawClient(URI.create(
        "ws://127.0.0.1:" + server.port() + "/socket.io/?EIO=4&transport=websocket"));
    assertThat(c.connectBlocking(10, TimeUnit.SECONDS)).as("WebSocket connected").isTrue();
    return c;
  }

  @Override
  public void onOpen(ServerHandshake handshake) {}

  @Override
  public void onMessage(String message) {
    frames.add(message);
  }

  @Override
  public void onMessage(ByteBuffer bytes) {
    byte[] b = new byte[bytes.remaining()];
    bytes.get(b);
    frames.add(b);
  }

  @Override
  public void onClose(int code, String reason, boolean remote) {
    closed.complete(code + " " + reason);
  }

  @Override
  public void onError(Exception ex) {}

  /** The next text frame (within 10 s). */
  String text() throws InterruptedException {
    Object f = frames.poll(10, TimeUnit.SECONDS);
    assertThat(f).as("a text frame").isInstanceOf(String.class);
    return (String) f;
  }

  /** The next binary frame (within 10 s). */
  byte[] binary() throws InterruptedException {
    Object f = frames.poll(10, TimeUnit.SECONDS);
    assertThat(f).as("a binary frame").isInstanceOf(byte[].class);
    return (byte[]) f;
  }

  /** The close code and reason the server sent (within 10 s). */
  String closeCodeAndReason() throws Exception {
    return closed.get(10, TimeUnit.SECONDS);
  }
}
