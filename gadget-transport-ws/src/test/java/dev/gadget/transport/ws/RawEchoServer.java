package dev.gadget.transport.ws;

import dev.gadget.transport.ws.internal.WriteWatch;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketAdapter;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.WebSocketServerFactory;
import org.java_websocket.WrappedByteChannel;
import org.java_websocket.drafts.Draft;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;

/**
 * A bare Java-WebSocket server that echoes every text frame from its worker thread, as Gadget
 * sends from threads other than the selector. With {@code slowDrain} its channels pause inside
 * the library's drain of an empty queue ({@code SocketChannelIOHelper.batch} asks a wrapped
 * channel {@code isNeedWrite()} between its look at the queue and the selector clearing the write
 * interest), which widens the library's race window so a test hits it every few round trips.
 * With a {@link WriteWatch}, each echo is watched as Gadget's sessions watch theirs.
 */
final class RawEchoServer extends WebSocketServer implements AutoCloseable {
  private final WriteWatch watch;
  private final CompletableFuture<Void> started = new CompletableFuture<>();

  RawEchoServer(boolean slowDrain, WriteWatch watch) {
    super(new InetSocketAddress("127.0.0.1", 0));
    this.watch = watch;
    setReuseAddr(true);
    setTcpNoDelay(true);
    setConnectionLostTimeout(0);
    setDaemon(true);
    if (slowDrain) {
      setWebSocketFactory(new SlowDrain());
    }
  }

  static RawEchoServer start(boolean slowDrain, WriteWatch watch) throws Exception {
    RawEchoServer s = new RawEchoServer(slowDrain, watch);
    s.start();
    s.started.get(10, TimeUnit.SECONDS);
    return s;
  }

  @Override
  public void onOpen(WebSocket conn, ClientHandshake handshake) {}

  @Override
  public void onClose(WebSocket conn, int code, String reason, boolean remote) {}

  @Override
  public void onMessage(WebSocket conn, String message) {
    conn.send(message);
    if (watch != null) {
      watch.queued(conn);
    }
  }

  @Override
  public void onError(WebSocket conn, Exception ex) {}

  @Override
  public void onStart() {
    started.complete(null);
  }

  @Override
  public void close() throws InterruptedException {
    stop(1000);
    if (watch != null) {
      watch.close();
    }
  }

  private static final class SlowDrain implements WebSocketServerFactory {
    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, Draft d) {
      return new WebSocketImpl(a, d);
    }

    @Override
    public WebSocketImpl createWebSocket(WebSocketAdapter a, List<Draft> drafts) {
      return new WebSocketImpl(a, drafts);
    }

    @Override
    public ByteChannel wrapChannel(SocketChannel channel, SelectionKey key) {
      return new SlowChannel(channel);
    }

    @Override
    public void close() {}
  }

  private record SlowChannel(SocketChannel channel) implements WrappedByteChannel {
    @Override
    public boolean isNeedWrite() {
      LockSupport.parkNanos(200_000);
      return false;
    }

    @Override
    public void writeMore() {}

    @Override
    public boolean isNeedRead() {
      return false;
    }

    @Override
    public int readMore(ByteBuffer dst) {
      return 0;
    }

    @Override
    public boolean isBlocking() {
      return false;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return channel.read(dst);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return channel.write(src);
    }

    @Override
    public boolean isOpen() {
      return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
