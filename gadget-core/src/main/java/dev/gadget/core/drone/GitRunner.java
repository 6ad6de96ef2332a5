package dev.gadget.core.drone;

import dev.gadget.core.drone.internal.SafeGit;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one git command for {@link GitChanges}: nothing the repository names is run
 * ({@link SafeGit}), no terminal prompts, no {@code ext::} remotes, a timeout, output read up to
 * a bound, credentials in URLs never passed on.
 */
final class GitRunner {
  private static final int MAX_OUT = 1 << 20;
  private static final int MAX_ERR = 16_384;

  /** A finished command: its exit code, its standard output and error (bounded). */
  record Result(int exit, String out, String err) {
    /** What git said, for an error message: its error output, else its output. */
    String output() {
      return (err.isBlank() ? out : err).strip();
    }
  }

  private final Duration timeout;

  GitRunner(Duration timeout) {
    this.timeout = timeout;
  }

  /** Runs git; its output must fit in 1 MB (ids, lists), or it is cut. */
  Result run(Path dir, Map<String, String> env, String... args) {
    return runWithInput(dir, env, null, args);
  }

  /** Runs git reading its standard input from {@code in} (null: none); output up to 1 MB. */
  Result runWithInput(Path dir, Map<String, String> env, Path in, String... args) {
    Path out = tempFile("gadget-git-out");
    try {
      return run(dir, env, out, in, args);
    } finally {
      delete(out);
    }
  }

  /**
   * The NUL-separated records git prints for {@code args} (a {@code -z} listing), all of them
   * however long the output, none stripped (a path may start with a space); a failure is a
   * {@link WorkspaceException}.
   */
  List<String> records(Path dir, Map<String, String> env, String... args) {
    Path out = tempFile("gadget-git-records");
    try {
      Result r = run(dir, env, out, args);
      if (r.exit() != 0) {
        throw new WorkspaceException("git " + args[0] + " failed: " + r.output());
      }
      List<String> records = new ArrayList<>();
      for (String record : Files.readString(out, StandardCharsets.UTF_8).split("\0")) {
        if (!record.isEmpty()) {
          records.add(record);
        }
      }
      return records;
    } catch (IOException e) {
      throw new WorkspaceException("git " + args[0] + " failed: " + e.getMessage(), e);
    } finally {
      delete(out);
    }
  }

  /** The path of a {@code git ls-files -s} record ({@code mode object stage<TAB>path}). */
  static String pathOf(String stagedRecord) {
    return stagedRecord.substring(stagedRecord.indexOf('\t') + 1);
  }

  /** Runs git and returns its trimmed output; a failure is a {@link WorkspaceException}. */
  String ok(Path dir, Map<String, String> env, String... args) {
    Result r = run(dir, env, args);
    if (r.exit() != 0) {
      throw new WorkspaceException("git " + args[0] + " failed (exit " + r.exit() + "): "
          + GitErrors.withoutCredentials(r.output()));
    }
    return r.out().strip();
  }

  /** The commit {@code rev} names, or null when it names none. */
  String resolve(Path dir, String rev) {
    Result r = run(dir, Map.of(), "rev-parse", "-q", "--verify", rev + "^{commit}");
    return r.exit() == 0 ? r.out().strip() : null;
  }

  /** A temporary file holding the patch from {@code from} to {@code to}, for git apply. */
  Path patch(Path dir, String from, String to) {
    Path file = tempFile("gadget-patch");
    Result r = run(dir, Map.of(), file, "diff", "--binary", "--full-index", "--no-renames",
        "--no-ext-diff", "--no-textconv", "--no-color", "--src-prefix=a/", "--dst-prefix=b/",
        from, to);
    if (r.exit() != 0) {
      delete(file);
      throw new WorkspaceException("git diff failed: " + r.output());
    }
    return file;
  }

  /** Runs git with its standard output in {@code out} (whole); returns up to 1 MB of it. */
  Result run(Path dir, Map<String, String> env, Path out, String... args) {
    return run(dir, env, out, null, args);
  }

  /** Runs git reading its standard input from {@code in} (null: none). */
  Result run(Path dir, Map<String, String> env, Path out, Path in, String... args) {
    List<String> all = new ArrayList<>(List.of("-c", "core.quotePath=false"));
    all.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(SafeGit.command(dir, env, timeout, all))
        .directory(dir.toFile());
    if (in != null) {
      pb.redirectInput(in.toFile());
    }
    Map<String, String> e = pb.environment();
    SafeGit.environment(e, dir);
    e.putAll(env);
    Path err = tempFile("gadget-git-err");
    Process p;
    try {
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      p = pb.start();
    } catch (IOException ex) {
      delete(err);
      throw new WorkspaceException("cannot run git: " + ex.getMessage(), ex);
    }
    try {
      p.getOutputStream().close();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new WorkspaceException("git " + args[0] + " took longer than "
            + timeout.toSeconds() + " s and was stopped");
      }
      return new Result(p.exitValue(), read(out, MAX_OUT), read(err, MAX_ERR));
    } catch (IOException ex) {
      throw new WorkspaceException("git " + args[0] + " failed: " + ex.getMessage(), ex);
    } catch (InterruptedException ex) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new WorkspaceException("interrupted while running git " + args[0], ex);
    } finally {
      delete(err);
    }
  }

  static String read(Path file, int max) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readNBytes(max), StandardCharsets.UTF_8);
    }
  }

  /** The environment that makes {@code name <email>} a commit's author and committer. */
  static Map<String, String> identity(String name, String email) {
    return Map.of("GIT_AUTHOR_NAME", name, "GIT_AUTHOR_EMAIL", email,
        "GIT_COMMITTER_NAME", name, "GIT_COMMITTER_EMAIL", email);
  }

  /** A path for a temporary index; the file itself does not exist (git creates it). */
  static Path tempIndex() {
    Path p = tempFile("gadget-index");
    delete(p);
    return p;
  }

  static Path tempFile(String prefix) {
    try {
      return Files.createTempFile(prefix, ".tmp");
    } catch (IOException e) {
      throw new WorkspaceException("cannot create a temporary file: " + e.getMessage(), e);
    }
  }

  static void delete(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      // a leftover temporary file is harmless
    }
  }
}
