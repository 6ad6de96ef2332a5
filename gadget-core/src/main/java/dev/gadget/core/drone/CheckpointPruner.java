package dev.gadget.core.drone;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keeps a project's checkpoint refs ({@code refs/gadget/checkpoints/<turnId>/…}) from piling up:
 * past the newest {@code keep} turns, the refs of a turn that no undo or commit can use any more
 * go (its changes were undone or committed, it changed nothing, or it never finished), oldest
 * first, so that {@code git gc} can free what only they held. A turn whose changes may still be
 * undone or committed is kept, however old; {@link #forget} removes named turns whatever they are
 * (their chat was deleted).
 */
final class CheckpointPruner {
  private final GitRunner git;

  CheckpointPruner(GitRunner git) {
    this.git = git;
  }

  /** One turn's refs: which of before, after, undone and committed it has, and their objects. */
  private static final class Turn {
    final List<String> refs = new ArrayList<>();
    final Map<String, String> trees = new LinkedHashMap<>();
    long time = Long.MAX_VALUE;
  }

  /** Prunes past {@code keep} turns; how many turns' refs went. */
  int prune(Path dir, int keep) {
    Map<String, Turn> turns = list(dir);
    if (turns.size() <= keep) {
      return 0;
    }
    List<Map.Entry<String, Turn>> oldest = new ArrayList<>(turns.entrySet());
    oldest.sort(Comparator.comparingLong(e -> e.getValue().time));
    List<String> gone = new ArrayList<>();
    int pruned = 0;
    for (Map.Entry<String, Turn> e : oldest.subList(0, turns.size() - keep)) {
      Turn t = e.getValue();
      boolean spent = t.trees.containsKey("undone") || t.trees.containsKey("committed")
          || !t.trees.containsKey("after")
          || t.trees.get("after").equals(t.trees.get("before"));
      if (spent) {
        gone.addAll(t.refs);
        pruned++;
      }
    }
    delete(dir, gone);
    return pruned;
  }

  /** Removes every ref of {@code turnIds}. */
  void forget(Path dir, Set<String> turnIds) {
    List<String> gone = new ArrayList<>();
    list(dir).forEach((id, t) -> {
      if (turnIds.contains(id)) {
        gone.addAll(t.refs);
      }
    });
    delete(dir, gone);
  }

  private Map<String, Turn> list(Path dir) {
    Path out = GitRunner.tempFile("gadget-refs");
    try {
      GitRunner.Result r = git.run(dir, Map.of(), out, "for-each-ref",
          "--format=%(refname)%09%(tree)%09%(committerdate:unix)", GitChanges.REF_PREFIX);
      if (r.exit() != 0) {
        throw new WorkspaceException("git for-each-ref failed: " + r.output());
      }
      Map<String, Turn> turns = new LinkedHashMap<>();
      for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
        String[] f = line.split("\t", -1);
        String rest = f[0].substring(GitChanges.REF_PREFIX.length());
        int slash = rest.lastIndexOf('/');
        if (f.length < 3 || slash <= 0) {
          continue;
        }
        Turn t = turns.computeIfAbsent(rest.substring(0, slash), k -> new Turn());
        t.refs.add(f[0]);
        t.trees.put(rest.substring(slash + 1), f[1]);
        if (rest.endsWith("/before") && !f[2].isEmpty()) {
          t.time = Long.parseLong(f[2]);
        }
      }
      return turns;
    } catch (IOException | NumberFormatException e) {
      throw new WorkspaceException("cannot list the checkpoints: " + e.getMessage(), e);
    } finally {
      GitRunner.delete(out);
    }
  }

  private void delete(Path dir, List<String> refs) {
    if (refs.isEmpty()) {
      return;
    }
    Path in = GitRunner.tempFile("gadget-refs-in");
    try {
      StringBuilder sb = new StringBuilder();
      refs.forEach(ref -> sb.append("delete ").append(ref).append('\n'));
      Files.writeString(in, sb.toString(), StandardCharsets.UTF_8);
      GitRunner.Result r = git.runWithInput(dir, Map.of(), in, "update-ref", "--stdin");
      if (r.exit() != 0) {
        throw new WorkspaceException("git update-ref failed: " + r.output());
      }
    } catch (IOException e) {
      throw new WorkspaceException("cannot prune the checkpoints: " + e.getMessage(), e);
    } finally {
      GitRunner.delete(in);
    }
  }
}
