package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedPort} on real sockets: it relays a connection byte for byte both ways (to the end
 * of each side), answers what is no HTTP request and a server behind that is down in words, and
 * goes on serving.
 */
class SharedPortTest {
  /** Answers each connection with "echo:" and what it read until the client's end. */
  private static ServerSocket echo() throws IOException {
    ServerSocket s = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    Thread t = new Thread(() -> {
      while (!s.isClosed()) {
        try (Socket c = s.accept()) {
          byte[] all = c.getInputStream().readAllBytes();
          OutputStream out = c.getOutputStream();
          out.write("echo:".getBytes(StandardCharsets.UTF_8));
          out.write(all);
          out.flush();
        } catch (IOException e) {
          // closed
        }
      }
    }, "echo");
    t.setDaemon(true);
    t.start();
    return s;
  }

  private static String exchange(int port, String request) throws IOException {
    try (Socket c = new Socket("127.0.0.1", port)) {
      c.setSoTimeout(10_000);
      c.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
      c.shutdownOutput();
      InputStream in = c.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void relaysBothWaysByPathAndSaysWhatWentWrongInWords() throws Exception {
    try (ServerSocket a = echo(); ServerSocket b = echo();
        ServerSocket down = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int downPort = down.getLocalPort();
      down.close();
      try (SharedPort port = new SharedPort("127.0.0.1", 0, (path, client) ->
          new InetSocketAddress("127.0.0.1", path.startsWith("/socket.io/") ? a.getLocalPort()
              : path.startsWith("/down") ? downPort : b.getLocalPort()))) {
        String big = "x".repeat(200_000);
        assertThat(exchange(port.port(), "GET /socket.io/?EIO=4 HTTP/1.1\r\n\r\n" + big))
            .isEqualTo("echo:GET /socket.io/?EIO=4 HTTP/1.1\r\n\r\n" + big);
        assertThat(exchange(port.port(), "GET /index.html HTTP/1.1\r\n\r\n"))
            .isEqualTo("echo:GET /index.html HTTP/1.1\r\n\r\n");
        assertThat(exchange(port.port(), "hello there\r\n"))
            .startsWith("HTTP/1.1 400 Bad Request").endsWith("not an HTTP request\n");
        assertThat(exchange(port.port(), "x".repeat(SharedPort.MAX_HEAD)))
            .as("no line within the bound").startsWith("HTTP/1.1 400 Bad Request");
        assertThat(exchange(port.port(), "GET /down HTTP/1.1\r\n\r\n"))
            .startsWith("HTTP/1.1 502 Bad Gateway")
            .endsWith("the server behind this port is not answering\n");
        assertThat(exchange(port.port(), "GET / HTTP/1.1\r\n\r\n"))
            .as("still serving").isEqualTo("echo:GET / HTTP/1.1\r\n\r\n");
      }
    }
  }
}
