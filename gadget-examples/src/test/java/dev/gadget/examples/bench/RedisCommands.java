package dev.gadget.examples.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many commands a Redis has run, from {@code INFO commandstats} (the sum of every command's
 * {@code calls=}, without the INFO calls this counter makes): read before and after a measured
 * window, the difference is what the servers asked of it. A connection of its own, opened per
 * read, with a 5 s bound on connecting and reading.
 */
final class RedisCommands {
  private final String host;
  private final int port;
  private Map<String, Long> before = Map.of();
  private Map<String, Long> last = Map.of();

  RedisCommands(String redisUri) {
    URI uri = URI.create(redisUri);
    this.host = uri.getHost();
    this.port = uri.getPort();
  }

  /** The commands run so far; remembers them by name for {@link #sinceLastButOne()}. */
  long count() {
    long calls = 0;
    Map<String, Long> now = new TreeMap<>();
    for (String line : info().split("\r\n")) {
      if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
        int from = line.indexOf("calls=") + "calls=".length();
        long n = Long.parseLong(line.substring(from, line.indexOf(',', from)));
        now.put(line.substring("cmdstat_".length(), line.indexOf(':')), n);
        calls += n;
      }
    }
    before = last;
    last = now;
    return calls;
  }

  /** Each command's calls between the last two {@link #count()}s, such as "evalsha=1000". */
  String sinceLastButOne() {
    StringBuilder out = new StringBuilder();
    last.forEach((name, n) -> {
      long d = n - before.getOrDefault(name, 0L);
      if (d > 0) {
        out.append(out.length() == 0 ? "" : " ").append(name).append('=').append(d);
      }
    });
    return out.toString();
  }

  private String info() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 5_000);
      s.setSoTimeout(5_000);
      s.getOutputStream().write("INFO commandstats\r\n".getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      StringBuilder head = new StringBuilder(); // "$<length>\r\n"
      for (int c; (c = in.read()) != '\n'; ) {
        if (c < 0) {
          throw new IOException("Redis closed the connection");
        }
        head.append((char) c);
      }
      if (head.charAt(0) != '$') {
        throw new IOException("Redis answered INFO with " + head);
      }
      int length = Integer.parseInt(head.substring(1).trim());
      ByteArrayOutputStream body = new ByteArrayOutputStream(length);
      byte[] buf = new byte[8192];
      while (body.size() < length) {
        int n = in.read(buf, 0, Math.min(buf.length, length - body.size()));
        if (n < 0) {
          throw new IOException("Redis closed the connection mid-answer");
        }
        body.write(buf, 0, n);
      }
      return body.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read INFO commandstats from " + host + ":" + port, e);
    }
  }
}
