package dev.gadget.core.drone;

import dev.gadget.core.model.TurnDiff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Measures what a turn's checkpoints cost on a project of FILES files (not a test): the
 * checkpoint before the turn, and the one after it with the diff of a turn that changed 3 files.
 * Prints the median of ROUNDS turns.
 *
 * <pre>
 * ./mvnw -B -q -pl gadget-core test-compile exec:java \
 *     -Dexec.mainClass=dev.gadget.core.drone.GitChangesBenchmark -Dexec.classpathScope=test \
 *     [-Dexec.args="FILES ROUNDS"]
 * </pre>
 */
public final class GitChangesBenchmark {
  private GitChangesBenchmark() {}

  /** Runs the benchmark. */
  public static void main(String[] args) throws Exception {
    int files = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    Path dir = Files.createTempDirectory("gadget-git-bench");
    try {
      git(dir, "init", "-q");
      for (int i = 0; i < files; i++) {
        Path f = dir.resolve("src/p" + (i % 50) + "/F" + i + ".java");
        Files.createDirectories(f.getParent());
        Files.writeString(f, ("class F" + i + " {\n  int x = " + i + ";\n}\n").repeat(20));
      }
      git(dir, "add", "-A");
      git(dir, "-c", "user.name=B", "-c", "user.email=b@example.com", "commit", "-q", "-m", "b");
      GitChanges changes = new GitChanges(Duration.ofMinutes(5));
      List<Long> before = new ArrayList<>();
      List<Long> after = new ArrayList<>();
      int patchBytes = 0;
      for (int r = 0; r < rounds; r++) {
        String turn = "t" + r;
        long t0 = System.nanoTime();
        changes.checkpoint(dir, turn);
        long t1 = System.nanoTime();
        for (int k = 0; k < 3; k++) {
          Files.writeString(dir.resolve("src/p" + k + "/F" + k + ".java"), "// round " + r + "\n",
              java.nio.file.StandardOpenOption.APPEND);
        }
        long t2 = System.nanoTime();
        TurnDiff diff = changes.finish(dir, turn);
        long t3 = System.nanoTime();
        before.add(t1 - t0);
        after.add(t3 - t2);
        patchBytes = diff.patch().length();
      }
      System.out.printf(Locale.ROOT, "%,d files, %d turns changing 3 files each (patch %,d "
              + "chars): checkpoint before %.1f ms, after + diff %.1f ms (medians)%n", files,
          rounds, patchBytes, median(before) / 1e6, median(after) / 1e6);
    } finally {
      try (var walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static double median(List<Long> xs) {
    List<Long> s = new ArrayList<>(xs);
    s.sort(null);
    return s.get(s.size() / 2);
  }

  private static void git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).inheritIO().start();
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("git " + String.join(" ", args) + " failed");
    }
  }
}
