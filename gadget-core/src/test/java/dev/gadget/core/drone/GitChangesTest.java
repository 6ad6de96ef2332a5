package dev.gadget.core.drone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.agent.TestRepo;
import dev.gadget.core.model.TurnDiff;
import dev.gadget.core.model.TurnDiff.FileChange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GitChanges on real git: checkpoints, diffs, undo, commit and push to a local bare remote. */
class GitChangesTest {
  @TempDir Path tmp;
  Path remote;
  Path dir;
  GitChanges changes = new GitChanges(Duration.ofSeconds(60));

  @BeforeEach
  void project() throws Exception {
    Path seed = Files.createDirectories(tmp.resolve("seed"));
    git(seed, "init", "-q", "-b", "main");
    Files.writeString(seed.resolve("a.txt"), "one\ntwo\nthree\nfour\nfive\n");
    Files.writeString(seed.resolve("b.txt"), "alpha\nbeta\n");
    Files.writeString(seed.resolve("old.txt"), "to be deleted\n");
    Files.writeString(seed.resolve(".gitignore"), "build/\n");
    git(seed, "add", "-A");
    git(seed, "-c", "user.name=Seed", "-c", "user.email=seed@example.com", "commit", "-q",
        "-m", "init");
    remote = tmp.resolve("origin.git");
    git(tmp, "clone", "-q", "--bare", seed.toString(), remote.toString());
    dir = tmp.resolve("work");
    git(tmp, "clone", "-q", remote.toString(), dir.toString());
  }

  @Test
  void aTurnThatEditsTwoFilesAndAddsOneHasADiffThatTurnsThePreTurnTreeIntoThePostTurnTree()
      throws Exception {
    Files.writeString(dir.resolve("b.txt"), "alpha\nbeta\nmine, uncommitted\n"); // the user's
    changes.checkpoint(dir, "t1");
    Map<String, String> before = files(dir);

    Files.writeString(dir.resolve("a.txt"), "one\nTWO\nthree\nfour\nfive\n");
    Files.writeString(dir.resolve("b.txt"), "alpha\nbeta\nmine, uncommitted\ngamma\n");
    Files.writeString(dir.resolve("new.txt"), "brand new\n");
    Files.createDirectories(dir.resolve("build"));
    Files.writeString(dir.resolve("build/out.class"), "ignored by .gitignore");
    TurnDiff diff = changes.finish(dir, "t1");

    assertThat(diff.files()).containsExactly(
        new FileChange("a.txt", "modified", false, 1, 1),
        new FileChange("b.txt", "modified", false, 1, 0),
        new FileChange("new.txt", "added", false, 1, 0));
    assertThat(diff.truncated()).isFalse();
    assertThat(diff.patch()).contains("-two\n+TWO\n", "+gamma\n", "+brand new\n")
        .doesNotContain("+mine, uncommitted", "build/out.class");

    // the patch applies cleanly to the pre-turn tree and reproduces the post-turn tree
    Path replay = Files.createDirectories(tmp.resolve("replay"));
    write(replay, before);
    Path patch = Files.writeString(tmp.resolve("t1.patch"), diff.patch());
    git(replay, "apply", "--whitespace=nowarn", patch.toString());
    Map<String, String> after = files(dir);
    after.remove("build/out.class");
    assertThat(files(replay)).isEqualTo(after);
  }

  @Test
  void aTurnThatChangesNothingHasNoDiffAndTheUsersStateIsUntouched() throws Exception {
    Files.writeString(dir.resolve("b.txt"), "alpha\nbeta\nmine\n");
    git(dir, "add", "b.txt");
    Files.writeString(dir.resolve("untracked.txt"), "mine too\n");
    String status = gitOut(dir, "status", "--porcelain");
    String stash = gitOut(dir, "stash", "list");

    changes.checkpoint(dir, "t1");
    TurnDiff diff = changes.finish(dir, "t1");

    assertThat(diff.isEmpty()).isTrue();
    assertThat(diff.patch()).isEmpty();
    assertThat(gitOut(dir, "status", "--porcelain")).isEqualTo(status);
    assertThat(gitOut(dir, "stash", "list")).isEqualTo(stash);
    assertThat(gitOut(dir, "branch", "--list")).isEqualTo("* main\n");
    assertThat(gitOut(dir, "for-each-ref", "--format=%(refname)", "refs/gadget/"))
        .contains("refs/gadget/checkpoints/t1/before", "refs/gadget/checkpoints/t1/after");
  }

  @Test
  void undoRestoresTheExactPreTurnContentAndKeepsTheUsersOwnChanges() throws Exception {
    Files.writeString(dir.resolve("b.txt"), "alpha\nbeta\nmine\n");
    Files.writeString(dir.resolve("notes.txt"), "my notes\n");
    changes.checkpoint(dir, "t1");
    Map<String, String> before = files(dir);
    Files.writeString(dir.resolve("a.txt"), "one\nTWO\nthree\n");
    Files.delete(dir.resolve("old.txt"));
    Files.write(dir.resolve("logo.bin"), new byte[] {0, 1, 2, (byte) 0xff, 0, 7});
    TurnDiff diff = changes.finish(dir, "t1");
    assertThat(diff.files()).extracting(FileChange::path, FileChange::change,
        FileChange::binary).containsExactly(
        org.assertj.core.groups.Tuple.tuple("a.txt", "modified", false),
        org.assertj.core.groups.Tuple.tuple("logo.bin", "added", true),
        org.assertj.core.groups.Tuple.tuple("old.txt", "deleted", false));
    // the patch leaves the binary file out, says so, and applies with git apply
    assertThat(diff.patch()).doesNotContain("logo.bin").doesNotContain("GIT binary patch")
        .contains("+TWO");
    assertThat(diff.note()).isEqualTo("Binary files are left out of the patch (it applies "
        + "without them): logo.bin.");
    Path patchFile = tmp.resolve("t1.patch");
    Files.writeString(patchFile, diff.patch());
    git(dir, "apply", "--check", "-R", patchFile.toString());

    TurnDiff revert = changes.undo(dir, "t1");

    assertThat(files(dir)).isEqualTo(before);
    assertThat(revert.revertOf()).isEqualTo("t1");
    assertThat(revert.files()).extracting(FileChange::path, FileChange::change)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("a.txt", "modified"),
            org.assertj.core.groups.Tuple.tuple("logo.bin", "deleted"),
            org.assertj.core.groups.Tuple.tuple("old.txt", "added"));
    assertThatThrownBy(() -> changes.undo(dir, "t1")).isInstanceOf(WorkspaceException.class)
        .hasMessage("this turn's changes were undone already");
  }

  @Test
  void undoOfAnOlderTurnWhoseLinesALaterTurnChangedIsRefusedAndChangesNothing()
      throws Exception {
    changes.checkpoint(dir, "t1");
    Files.writeString(dir.resolve("a.txt"), "one\nTWO\nthree\nfour\nfive\n");
    Files.writeString(dir.resolve("b.txt"), "alpha\nbeta\ngamma\n");
    changes.finish(dir, "t1");
    changes.checkpoint(dir, "t2");
    Files.writeString(dir.resolve("a.txt"), "one\nTwo, again\nthree\nfour\nfive\n");
    changes.finish(dir, "t2");
    Map<String, String> now = files(dir);

    assertThatThrownBy(() -> changes.undo(dir, "t1")).isInstanceOf(WorkspaceException.class)
        .hasMessage("cannot undo this turn: a.txt changed after it (by a later turn or by you) "
            + "where this turn made its changes; undo the later turns first, or change it back "
            + "by hand");
    assertThat(files(dir)).isEqualTo(now);

    changes.undo(dir, "t2");
    changes.undo(dir, "t1");
    assertThat(Files.readString(dir.resolve("a.txt"))).isEqualTo("one\ntwo\nthree\nfour\nfive\n");
    assertThat(Files.readString(dir.resolve("b.txt"))).isEqualTo("alpha\nbeta\n");
  }

  @Test
  void undoOfATurnWhoseLinesTheUserChangedLaterIsRefused() throws Exception {
    changes.checkpoint(dir, "t1");
    Files.writeString(dir.resolve("b.txt"), "alpha\nBETA\n");
    changes.finish(dir, "t1");
    Files.writeString(dir.resolve("b.txt"), "alpha\nBeta, as I like it\n");

    assertThatThrownBy(() -> changes.undo(dir, "t1")).hasMessageStartingWith(
        "cannot undo this turn: b.txt changed after it");
    assertThat(Files.readString(dir.resolve("b.txt"))).isEqualTo("alpha\nBeta, as I like it\n");
  }

  @Test
  void commitAndPushLandTheTurnsChangesOnTheRemoteBranchWithoutTheUsersOwnChanges()
      throws Exception {
    Files.writeString(dir.resolve("b.txt"), "alpha\nbeta\nmine, uncommitted\n");
    git(dir, "add", "b.txt");
    String indexBefore = gitOut(dir, "diff", "--cached");
    String head = gitOut(dir, "rev-parse", "HEAD").strip();
    changes.checkpoint(dir, "t1");
    Files.writeString(dir.resolve("a.txt"), "one\nTWO\nthree\nfour\nfive\n");
    Files.writeString(dir.resolve("new.txt"), "brand new\n");
    changes.finish(dir, "t1");
    changes.checkpoint(dir, "t2");
    Files.writeString(dir.resolve("a.txt"), "one\nTWO\nthree\nfour\nFIVE\n");
    changes.finish(dir, "t2");
    changes.checkpoint(dir, "t3");
    Files.writeString(dir.resolve("undone.txt"), "taken back\n");
    changes.finish(dir, "t3");
    changes.undo(dir, "t3");

    GitChanges.Commit c = changes.commit(dir, List.of("t1", "t2", "t3"), "gadget/s1",
        "Shout two and five", "Ada Lovelace", "ada@example.com");
    changes.push(dir, "origin", "gadget/s1");

    assertThat(c.turnIds()).containsExactly("t1", "t2");
    assertThat(gitOut(remote, "log", "-1", "--format=%an <%ae>|%cn|%s", "gadget/s1"))
        .isEqualTo("Ada Lovelace <ada@example.com>|Ada Lovelace|Shout two and five\n");
    assertThat(gitOut(remote, "rev-parse", "gadget/s1^").strip()).isEqualTo(head);
    assertThat(gitOut(remote, "diff", "--name-status", "main", "gadget/s1"))
        .isEqualTo("M\ta.txt\nA\tnew.txt\n");
    assertThat(gitOut(remote, "show", "gadget/s1:a.txt")).isEqualTo("one\nTWO\nthree\nfour\nFIVE\n");
    assertThat(gitOut(remote, "show", "gadget/s1:b.txt")).isEqualTo("alpha\nbeta\n");
    // the user's own change is where it was: in the working tree and the index, uncommitted
    assertThat(Files.readString(dir.resolve("b.txt"))).isEqualTo("alpha\nbeta\nmine, uncommitted\n");
    assertThat(gitOut(dir, "diff", "--cached")).isEqualTo(indexBefore);
    assertThat(gitOut(dir, "rev-parse", "HEAD").strip()).isEqualTo(head);
    assertThat(gitOut(dir, "symbolic-ref", "HEAD").strip()).isEqualTo("refs/heads/main");

    // committed turns are not committed twice, nor undone behind the branch's back
    assertThatThrownBy(() -> changes.commit(dir, List.of("t1", "t2"), "gadget/s1", "again",
        "Ada", "ada@example.com")).hasMessageStartingWith("nothing to commit");
    assertThatThrownBy(() -> changes.undo(dir, "t1"))
        .hasMessageStartingWith("this turn's changes are committed already");

    // a later turn goes on top of the branch
    changes.checkpoint(dir, "t4");
    Files.writeString(dir.resolve("new.txt"), "brand new\nand more\n");
    changes.finish(dir, "t4");
    GitChanges.Commit next = changes.commit(dir, List.of("t1", "t2", "t4"), "gadget/s1",
        "More", "Ada", "ada@example.com");
    assertThat(next.turnIds()).containsExactly("t4");
    assertThat(gitOut(dir, "rev-parse", "gadget/s1^").strip()).isEqualTo(c.commit());
  }

  @Test
  void pushErrorsAndBadBranchesAreToldInPeoplesWords() throws Exception {
    changes.checkpoint(dir, "t1");
    Files.writeString(dir.resolve("a.txt"), "changed\n");
    changes.finish(dir, "t1");
    assertThatThrownBy(() -> changes.commit(dir, List.of("t1"), "bad..name", "m", "A", "a@b"))
        .hasMessage("\"bad..name\" is not a valid branch name");
    assertThatThrownBy(() -> changes.commit(dir, List.of("t1"), "main", "m", "A", "a@b"))
        .hasMessageContaining("is the one checked out");
    assertThatThrownBy(() -> changes.push(dir, "origin", "gadget/none"))
        .hasMessageContaining("there is no branch gadget/none");
    changes.commit(dir, List.of("t1"), "gadget/s1", "mine", "A", "a@b");

    // someone else pushed gadget/s1 meanwhile
    Path other = tmp.resolve("other");
    git(tmp, "clone", "-q", remote.toString(), other.toString());
    git(other, "checkout", "-q", "-b", "gadget/s1");
    Files.writeString(other.resolve("z.txt"), "theirs\n");
    git(other, "add", "z.txt");
    git(other, "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-q", "-m", "o");
    git(other, "push", "-q", "origin", "gadget/s1");

    assertThatThrownBy(() -> changes.push(dir, "origin", "gadget/s1"))
        .isInstanceOf(WorkspaceException.class)
        .hasMessageStartingWith("cannot push gadget/s1: the remote's branch gadget/s1 has "
            + "commits this one does not have")
        // git's own line is the rejection, not one of its hints
        .hasMessageEndingWith("(git said: ! [rejected]        gadget/s1 -> gadget/s1 (fetch "
            + "first))");
    assertThatThrownBy(() -> changes.push(dir, "http://bob:s3cret@127.0.0.1:9/r.git",
        "gadget/s1")).hasMessageStartingWith("cannot push gadget/s1: the drone cannot reach "
            + "http://127.0.0.1:9/r.git").hasMessageNotContaining("s3cret");
  }

  @Test
  void aLongDiffIsCutAtAFileWithANoteAndStillListsEveryFile() throws Exception {
    GitChanges small = new GitChanges(Duration.ofSeconds(60), 2_048);
    small.checkpoint(dir, "t1");
    StringBuilder big = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      big.append("line ").append(i).append('\n');
    }
    Files.writeString(dir.resolve("a.txt"), "one\ntwo\nthree\nfour\nfive, changed\n");
    Files.writeString(dir.resolve("big.txt"), big);
    Files.writeString(dir.resolve("c.txt"), "after the big one\n");
    TurnDiff diff = small.finish(dir, "t1");

    assertThat(diff.truncated()).isTrue();
    assertThat(diff.files()).extracting(FileChange::path)
        .containsExactly("a.txt", "big.txt", "c.txt");
    assertThat(diff.patch().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(2_048);
    assertThat(diff.patch()).contains("+five, changed").endsWith("\n")
        .doesNotContain("after the big one");
    assertThat(diff.note()).contains("only its first 2 KB are shown", "3 files",
        "git diff refs/gadget/checkpoints/t1/before refs/gadget/checkpoints/t1/after");
  }

  @Test
  void aTurnThatAddsMoreThanAThousandFilesListsAThousandAndSaysSo() throws Exception {
    changes.checkpoint(dir, "t1");
    Files.createDirectories(dir.resolve("gen"));
    for (int i = 0; i < 1_005; i++) {
      Files.writeString(dir.resolve(String.format("gen/f%04d.txt", i)), "x\n");
    }
    TurnDiff diff = changes.finish(dir, "t1");

    assertThat(diff.files()).hasSize(1_000);
    assertThat(diff.files().get(999).path()).isEqualTo("gen/f0999.txt");
    assertThat(diff.truncated()).isTrue();
    assertThat(diff.note()).contains("Only the first 1,000 of 1,005 files are listed.");
  }

  private static Map<String, String> files(Path root) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (var walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
        String rel = root.relativize(p).toString().replace('\\', '/');
        if (!rel.startsWith(".git/")) {
          out.put(rel, new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
        }
      }
    }
    return out;
  }

  private static void write(Path root, Map<String, String> files) throws IOException {
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = root.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.write(p, f.getValue().getBytes(StandardCharsets.ISO_8859_1));
    }
  }

  @Test
  void undoOfATurnThatRanGitMvLeavesNothingStaged() throws Exception {
    Files.writeString(dir.resolve("notes.txt"), "mine, staged\n");
    git(dir, "add", "notes.txt"); // the user's own staged change stays
    changes.checkpoint(dir, "t1");
    git(dir, "mv", "a.txt", "moved.txt"); // what the agent ran, without a sandbox
    Files.writeString(dir.resolve("b.txt"), "alpha\nbeta\nedited\n");
    changes.finish(dir, "t1");

    changes.undo(dir, "t1");

    assertThat(dir.resolve("moved.txt")).doesNotExist();
    assertThat(gitOut(dir, "status", "--porcelain")).isEqualTo("A  notes.txt\n");
  }

  @Test
  void undoPutsBackOnlyWhatTheTurnStagedAndIsDoneEvenWhenTheIndexIsLocked() throws Exception {
    changes.checkpoint(dir, "t1");
    Files.writeString(dir.resolve(" lead.txt"), "the agent's\n");
    Files.writeString(dir.resolve("b.txt"), "alpha\nbeta\nthe agent's\n");
    git(dir, "add", "--", " lead.txt", "b.txt"); // what the agent staged
    changes.finish(dir, "t1");
    Files.writeString(dir.resolve("a.txt"), "one\ntwo\nthree\nfour\nfive\nmine\n");
    changes.checkpoint(dir, "t2");
    Files.writeString(dir.resolve("a.txt"), "ONE\ntwo\nthree\nfour\nfive\nmine\n");
    git(dir, "add", "a.txt"); // the agent's, in turn 2
    changes.finish(dir, "t2");
    Files.writeString(dir.resolve("a.txt"), "ONE\ntwo\nthree\nfour\nfive\nmine, again\n");
    git(dir, "add", "a.txt"); // the user staged more of a.txt since

    changes.undo(dir, "t1");
    assertThat(gitOut(dir, "status", "--porcelain", "--", " lead.txt", "b.txt")).isEmpty();
    changes.undo(dir, "t2");
    // a.txt's entry is the user's (it differs from the turn's end): it stays staged
    assertThat(gitOut(dir, "diff", "--cached", "--name-only")).isEqualTo("a.txt\n");

    // an index another git holds: the files are undone all the same, and the undo recorded
    changes.checkpoint(dir, "t3");
    Files.writeString(dir.resolve("c.txt"), "new\n");
    git(dir, "add", "c.txt");
    changes.finish(dir, "t3");
    Files.writeString(dir.resolve(".git/index.lock"), "");
    try {
      changes.undo(dir, "t3");
    } finally {
      Files.delete(dir.resolve(".git/index.lock"));
    }
    assertThat(dir.resolve("c.txt")).doesNotExist();
    assertThatThrownBy(() -> changes.undo(dir, "t3"))
        .hasMessage("this turn's changes were undone already");
  }

  static void git(Path dir, String... args) throws Exception {
    gitOut(dir, args);
  }

  static String gitOut(Path dir, String... args) throws Exception {
    return TestRepo.gitIn(dir, args);
  }
}
