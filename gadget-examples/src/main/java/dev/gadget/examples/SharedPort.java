package dev.gadget.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The page, its REST API and Socket.IO on one port, so that one forwarded port (ssh -L, a
 * container's -p) is enough. Each connection's first request line is read (at most
 * {@value #MAX_HEAD} bytes, within {@value #HEAD_TIMEOUT_MS} ms); then the connection is relayed
 * byte for byte, upgrades included, to the address {@code route} picks for its path and the
 * client's address (the Socket.IO transport for {@code /socket.io/}, else the HTTP server). A
 * browser opens a new connection for each WebSocket, so the first line decides for the whole
 * connection. At most {@value #MAX_CONNECTIONS} connections at a time; more are closed at once.
 */
final class SharedPort implements AutoCloseable {
  static final int MAX_HEAD = 8192;
  static final int HEAD_TIMEOUT_MS = 10_000;
  static final int MAX_CONNECTIONS = 512;
  private static final Logger log = LoggerFactory.getLogger(SharedPort.class);

  /** Where a connection goes, from its request path and the client's address. */
  interface Route {
    InetSocketAddress target(String path, InetAddress client);
  }

  private final ServerSocket server;
  private final Route route;
  private final Semaphore slots = new Semaphore(MAX_CONNECTIONS);
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final ExecutorService pool;
  private final Thread acceptor;
  private volatile boolean closed;

  /**
   * Binds {@code host:port} (0: any free port) and starts accepting.
   *
   * @throws CommandException if the address cannot be bound
   */
  SharedPort(String host, int port, Route route) {
    this.route = route;
    try {
      this.server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(host, port), 128);
    } catch (BindException e) {
      throw CommandException.cannotListen(host, port, e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    AtomicInteger n = new AtomicInteger();
    // two threads a connection (one each way), and MAX_CONNECTIONS connections at most
    this.pool = new ThreadPoolExecutor(0, 2 * MAX_CONNECTIONS, 60, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "gadget-port-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    this.acceptor = new Thread(this::acceptLoop, "gadget-port-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (!closed) {
          log.warn("cannot accept a connection: {}", e.getMessage());
        }
        continue;
      }
      if (!slots.tryAcquire()) {
        log.debug("{} connections open: closing a new one", MAX_CONNECTIONS);
        quietly(client);
        continue;
      }
      open.add(client);
      try {
        pool.execute(() -> {
          try {
            serve(client);
          } finally {
            open.remove(client);
            quietly(client);
            slots.release();
          }
        });
      } catch (RejectedExecutionException e) { // closed, or the last pumps not ended yet
        open.remove(client);
        quietly(client);
        slots.release();
      }
    }
  }

  private void serve(Socket client) {
    byte[] head = new byte[MAX_HEAD];
    int len = 0;
    int eol = -1;
    try {
      client.setSoTimeout(HEAD_TIMEOUT_MS);
      InputStream in = client.getInputStream();
      long deadline = System.nanoTime() + HEAD_TIMEOUT_MS * 1_000_000L; // for all of it
      while (eol < 0 && len < head.length) {
        if (System.nanoTime() > deadline) {
          return;
        }
        int r = in.read(head, len, head.length - len);
        if (r < 0) {
          return;
        }
        for (int i = len; i < len + r && eol < 0; i++) {
          if (head[i] == '\n') {
            eol = i;
          }
        }
        len += r;
      }
      client.setSoTimeout(0); // from here on, the servers behind bound their own waits
    } catch (IOException e) {
      return; // silent, slow or gone before its first line
    }
    String[] line = eol < 0 ? new String[0]
        : new String(head, 0, eol, StandardCharsets.ISO_8859_1).trim().split(" ");
    if (line.length != 3 || !line[1].startsWith("/")) {
      answer(client, "400 Bad Request", "not an HTTP request");
      return;
    }
    InetSocketAddress target = route.target(line[1], client.getInetAddress());
    Socket upstream = new Socket();
    try {
      upstream.connect(target, 5_000);
    } catch (IOException e) {
      quietly(upstream);
      log.debug("cannot reach {}: {}", target, e.getMessage());
      answer(client, "502 Bad Gateway", "the server behind this port is not answering");
      return;
    }
    open.add(upstream);
    try {
      upstream.getOutputStream().write(head, 0, len);
      upstream.getOutputStream().flush();
      pool.execute(() -> pump(client, upstream));
      pump(upstream, client); // until the server behind closes; then both are closed
    } catch (IOException | RejectedExecutionException e) {
      log.debug("relaying to {}: {}", target, e.getMessage());
    } finally {
      open.remove(upstream);
      quietly(upstream);
    }
  }

  /** Copies {@code from} to {@code to} until its end, then half-closes {@code to}. */
  private static void pump(Socket from, Socket to) {
    byte[] buf = new byte[16384];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int r; (r = in.read(buf)) >= 0; ) {
        out.write(buf, 0, r);
        out.flush();
      }
      to.shutdownOutput();
    } catch (IOException e) {
      quietly(to);
      quietly(from);
    }
  }

  private static void answer(Socket client, String status, String text) {
    byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
    String head = "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
    try {
      OutputStream out = client.getOutputStream();
      out.write(head.getBytes(StandardCharsets.ISO_8859_1));
      out.write(body);
      out.flush();
    } catch (IOException e) {
      // gone
    }
  }

  private static void quietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
    for (Socket s : Arrays.asList(open.toArray(new Socket[0]))) {
      quietly(s);
    }
    pool.shutdownNow();
  }
}
