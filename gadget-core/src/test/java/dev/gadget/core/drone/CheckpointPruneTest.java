package dev.gadget.core.drone;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 500 turns' checkpoints in a real repository: past the newest turns kept, those no undo or
 * commit can use go, those still to undo or commit stay, and git gc then frees their objects.
 */
class CheckpointPruneTest {
  @TempDir Path tmp;

  private static String git(Path dir, String... args) throws Exception {
    return TestRepo.gitIn(dir, args);
  }

  /** Turn i's kind: 0 still to undo or commit, 1 committed, 2 undone, else changed nothing. */
  private static int kind(int i) {
    return i % 10 < 3 ? i % 10 : 3;
  }

  @Test
  void fiveHundredTurnsArePrunedToTheNewestAndThoseStillToUndo() throws Exception {
    Path dir = TestRepo.create(tmp, "a.txt", "one\n").dir();
    Files.writeString(dir.resolve("b.txt"), "two\n");
    git(dir, "add", "b.txt");
    String t0 = git(dir, "rev-parse", "HEAD^{tree}").strip();
    String t1 = git(dir, "write-tree").strip();
    // each turn's commits as a checkpoint makes them, one second apart, and its refs
    GitPlants.run(dir, "T0=" + t0 + "; T1=" + t1 + "\n"
        + "for i in $(seq 1 500); do\n"
        + "  export GIT_COMMITTER_DATE=\"$((1700000000 + i)) +0000\"\n"
        + "  b=$(git -c user.name=G -c user.email=g@x commit-tree $T0 -m before$i)\n"
        + "  k=$((i % 10)); if [ $k -lt 3 ]; then t=$T1; else t=$T0; fi\n"
        + "  a=$(git -c user.name=G -c user.email=g@x commit-tree $t -m after$i)\n"
        + "  echo \"create refs/gadget/checkpoints/t$i/before $b\"\n"
        + "  echo \"create refs/gadget/checkpoints/t$i/after $a\"\n"
        + "  if [ $k -eq 1 ]; then echo \"create refs/gadget/checkpoints/t$i/committed $a\"; fi\n"
        + "  if [ $k -eq 2 ]; then echo \"create refs/gadget/checkpoints/t$i/undone $a\"; fi\n"
        + "done > ../refs.txt\n"
        + "git update-ref --stdin < ../refs.txt\n");
    String oldBefore = git(dir, "rev-parse", "refs/gadget/checkpoints/t1/before").strip();
    GitChanges changes = new GitChanges(Duration.ofSeconds(60));

    assertThat(changes.prune(dir, 100)).isEqualTo(360);

    Set<String> left = turns(dir);
    Set<String> expected = new TreeSet<>();
    for (int i = 1; i <= 500; i++) {
      if (i > 400 || kind(i) == 0) {
        expected.add("t" + i);
      }
    }
    assertThat(left).isEqualTo(expected);
    assertThat(changes.prune(dir, 100)).as("nothing more to prune").isZero();
    // git gc frees what only the pruned refs held
    git(dir, "-c", "gc.reflogExpire=now", "-c", "gc.reflogExpireUnreachable=now", "gc", "-q",
        "--prune=now");
    assertThat(exists(dir, oldBefore)).isFalse();
    assertThat(exists(dir, git(dir, "rev-parse", "refs/gadget/checkpoints/t10/before").strip()))
        .isTrue();

    // a deleted chat's turns go whatever they are
    changes.forget(dir, Set.of("t10", "t500"));
    assertThat(turns(dir)).doesNotContain("t10", "t500").hasSize(expected.size() - 2);
  }

  private static Set<String> turns(Path dir) throws Exception {
    Set<String> ids = new TreeSet<>();
    Arrays.stream(git(dir, "for-each-ref", "--format=%(refname)", "refs/gadget/checkpoints/")
        .split("\n")).filter(s -> !s.isBlank())
        .forEach(r -> ids.add(r.split("/")[3]));
    return ids;
  }

  private static boolean exists(Path dir, String object) throws Exception {
    Process p = new ProcessBuilder("git", "cat-file", "-e", object).directory(dir.toFile())
        .redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor() == 0;
  }
}
