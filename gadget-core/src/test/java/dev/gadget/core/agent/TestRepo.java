package dev.gadget.core.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** A real git repository in a temporary directory, and helpers for processes. */
public final class TestRepo {
  private final Path dir;

  private TestRepo(Path dir) {
    this.dir = dir;
  }

  /** A repository in {@code parent}/project with {@code files} (path, content, ...) committed. */
  public static TestRepo create(Path parent, String... files) throws Exception {
    Path dir = Files.createDirectories(parent.resolve("project"));
    TestRepo repo = new TestRepo(dir);
    repo.git("init", "-q");
    repo.git("config", "user.email", "test@gadget.dev");
    repo.git("config", "user.name", "Test");
    repo.git("config", "commit.gpgsign", "false");
    for (int i = 0; i + 1 < files.length; i += 2) {
      repo.write(files[i], files[i + 1]);
    }
    repo.git("add", "-A");
    repo.git("commit", "-q", "--allow-empty", "-m", "initial");
    return repo;
  }

  public Path dir() {
    return dir;
  }

  public Path path(String rel) {
    return dir.resolve(rel);
  }

  public void write(String rel, String content) throws IOException {
    Path p = dir.resolve(rel);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  public String read(String rel) throws IOException {
    return Files.readString(dir.resolve(rel));
  }

  /** Runs git in the repository and returns its output; fails on a non-zero exit. */
  public String git(String... args) throws Exception {
    return gitIn(dir, args);
  }

  /** Runs git in {@code dir} and returns its output; fails on a non-zero exit. */
  public static String gitIn(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add("git");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("git " + args[0] + " failed: " + out);
    }
    return out;
  }

  /** Whether {@code pid} is a live process (a zombie waiting to be reaped is not). */
  public static boolean alive(long pid) {
    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      return false;
    }
    Path stat = Path.of("/proc/" + pid + "/stat");
    try {
      String s = Files.readString(stat);
      String afterName = s.substring(s.lastIndexOf(')') + 2);
      return afterName.charAt(0) != 'Z' && afterName.charAt(0) != 'X';
    } catch (IOException | RuntimeException e) {
      return !Files.isDirectory(Path.of("/proc")); // no /proc: trust ProcessHandle
    }
  }

  /** Polls {@code condition} until it holds, failing after {@code seconds}. */
  public static void await(String what, long seconds, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  /** The pids written to {@code rel}, one per line, once there are {@code count}. */
  public List<Long> awaitPids(String rel, int count) {
    List<Long> pids = new ArrayList<>();
    await(count + " pids in " + rel, 15, () -> {
      pids.clear();
      try {
        for (String line : Files.readAllLines(dir.resolve(rel))) {
          if (!line.isBlank()) {
            pids.add(Long.parseLong(line.strip()));
          }
        }
      } catch (IOException | NumberFormatException e) {
        return false;
      }
      return pids.size() >= count;
    });
    return pids;
  }
}
