package dev.gadget.cluster.redis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A real {@code redis-server} (Debian's package; test.sh installs it) on a free 127.0.0.1 port,
 * without persistence, in a process of its own: {@link #kill()} and {@link #start()} again on
 * the same port to test what a Redis outage does.
 */
public final class TestRedis implements AutoCloseable {
  private final int port;
  private final Path dir;
  private Process process;

  public TestRedis() throws IOException {
    this.port = dev.gadget.core.TestPorts.free();
    this.dir = Files.createTempDirectory("gadget-redis");
    start();
  }

  /** Starts redis-server on this port and waits until it answers PING. */
  public void start() throws IOException {
    List<String> command = List.of(binary(), "--port", String.valueOf(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString());
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("redis.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!answers()) {
      if (System.nanoTime() > deadline || !process.isAlive()) {
        throw new IllegalStateException("redis-server did not start on port " + port + ": "
            + Files.readString(dir.resolve("redis.log")));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  private static String binary() {
    for (String d : List.of("/usr/bin", "/usr/local/bin", "/usr/sbin")) {
      if (Files.isExecutable(Path.of(d, "redis-server"))) {
        return d + "/redis-server";
      }
    }
    throw new IllegalStateException(
        "the cluster tests need redis-server: install it (apt-get install redis-server; "
            + "test.sh does)");
  }

  private boolean answers() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] reply = new byte[7];
      return s.getInputStream().read(reply) > 0
          && new String(reply, StandardCharsets.US_ASCII).startsWith("+PONG");
    } catch (IOException e) {
      return false;
    }
  }

  /** {@code redis://127.0.0.1:port}. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** Kills the server at once (SIGKILL) and waits for it to be gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }
}
