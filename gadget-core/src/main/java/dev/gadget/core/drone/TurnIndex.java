package dev.gadget.core.drone;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's index as a turn found it, and its entries put back when the turn is undone: what
 * the agent staged of the turn's files ({@code git mv}, {@code git add}) goes, what the user
 * staged since (an entry that differs from the turn's end) and a merge's unmerged entries stay.
 */
final class TurnIndex {
  private static final Logger log = LoggerFactory.getLogger(TurnIndex.class);

  private final GitRunner git;

  TurnIndex(GitRunner git) {
    this.git = git;
  }

  /**
   * The tree of the user's index as it is (written from a copy: the user's file is not touched),
   * or null when there is none or it cannot be a tree (a merge in progress).
   */
  String record(Path dir) {
    Path user = dir.resolve(git.ok(dir, Map.of(), "rev-parse", "--git-path", "index"));
    if (!Files.isRegularFile(user)) {
      return null;
    }
    Path copy = GitRunner.tempIndex();
    try {
      Files.copy(user, copy);
      GitRunner.Result r = git.run(dir, Map.of("GIT_INDEX_FILE", copy.toString()), "write-tree");
      return r.exit() == 0 ? r.out().strip() : null;
    } catch (IOException e) {
      return null;
    } finally {
      GitRunner.delete(copy);
    }
  }

  /**
   * Puts back, from the index recorded at {@code recordRef}, the entries of the files the turn
   * changed ({@code before..after}) that the turn left staged. Best effort: the undo of the
   * files is done already, so a failure (an index locked by another git) is logged, not thrown.
   */
  void restore(Path dir, String recordRef, String before, String after) {
    try {
      GitRunner.Result recorded = git.run(dir, Map.of(), "rev-parse", "-q", "--verify",
          recordRef + "^{tree}");
      if (recorded.exit() != 0) {
        return;
      }
      String index = recorded.out().strip();
      List<String> touched = paths(dir, "diff", "--name-only", "-z", "--no-renames", before,
          after);
      if (touched.isEmpty()) {
        return;
      }
      Set<String> staged = new HashSet<>(paths(dir, literal(touched, "diff", "--cached",
          "--name-only", "-z", "--no-renames", index)));
      // the user's since: an entry unlike the turn's end, or unmerged
      staged.removeAll(paths(dir, literal(touched, "diff", "--cached", "--name-only", "-z",
          "--no-renames", after)));
      staged.removeAll(unmerged(dir));
      if (!staged.isEmpty()) {
        List<String> restore = new ArrayList<>(staged);
        restore.sort(null);
        GitRunner.Result r = git.run(dir, Map.of(), literal(restore, "restore", "--staged",
            "--source=" + index));
        if (r.exit() != 0) {
          throw new WorkspaceException(r.output());
        }
      }
    } catch (WorkspaceException e) {
      log.warn("{}: the undo left the index as it was: {}", dir, e.getMessage());
    }
  }

  /** {@code args} then {@code --} and each path as a literal pathspec. */
  private static String[] literal(List<String> paths, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--");
    paths.forEach(p -> all.add(":(literal)" + p));
    return all.toArray(String[]::new);
  }

  private List<String> paths(Path dir, String... args) {
    return git.records(dir, Map.of(), args);
  }

  private Set<String> unmerged(Path dir) {
    Set<String> out = new HashSet<>();
    git.records(dir, Map.of(), "ls-files", "-u", "-z").forEach(r -> out.add(GitRunner.pathOf(r)));
    return out;
  }
}
