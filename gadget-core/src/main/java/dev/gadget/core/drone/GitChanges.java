package dev.gadget.core.drone;

import dev.gadget.core.drone.internal.SafeGit;
import dev.gadget.core.model.TurnDiff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * What the agent's turns did to a project's git checkout, and what a person does with it: a
 * checkpoint of the working tree before a turn and after it, the turn's {@link TurnDiff}, undo
 * of one turn's changes, a commit of the turns' changes on a branch, and a push.
 *
 * <p>Checkpoints are commits under hidden refs ({@code refs/gadget/checkpoints/<turnId>/before},
 * {@code …/after}), built from a temporary index ({@code GIT_INDEX_FILE}): the user's commits,
 * branches, index and stash are never touched. They hold every file git would add (untracked
 * files too, ignored ones not), except {@code .gadget/}. A commit is built the same way on top
 * of the branch (or {@code HEAD}) from the turns' own patches, so changes the user made outside
 * the turns are never committed, and the working tree stays as it is. Undo reverse-applies one
 * turn's patch to the working tree, after {@code git apply --check}; it refuses, naming the
 * files, when later changes touched the same lines.
 *
 * <p>Every failure is a {@link WorkspaceException} whose message is meant for people. Each git
 * command gets the timeout; none prompts for credentials. Thread-safe; calls on one project
 * directory should not overlap (the drone runs them one at a time).
 */
public final class GitChanges {
  /** The longest patch a diff block holds by default: 256 KB. */
  public static final int DEFAULT_MAX_PATCH_BYTES = 256 * 1024;
  /** Where the checkpoints live. */
  public static final String REF_PREFIX = "refs/gadget/checkpoints/";

  private static final Map<String, String> GADGET =
      GitRunner.identity("Gadget", "gadget@localhost");

  private final GitRunner git;
  private final int maxPatchBytes;

  /** Git with a timeout for each command, and diff blocks of at most 256 KB. */
  public GitChanges(Duration timeout) {
    this(timeout, DEFAULT_MAX_PATCH_BYTES);
  }

  /** Git with a timeout for each command, and diff blocks of at most {@code maxPatchBytes}. */
  public GitChanges(Duration timeout, int maxPatchBytes) {
    this.git = new GitRunner(Objects.requireNonNull(timeout, "timeout"));
    if (maxPatchBytes < 1_024) {
      throw new IllegalArgumentException("maxPatchBytes < 1024: " + maxPatchBytes);
    }
    this.maxPatchBytes = maxPatchBytes;
  }

  /** How many turns' checkpoints a project keeps by default ({@link #prune}). */
  public static final int DEFAULT_KEPT_CHECKPOINTS = 200;

  /**
   * Past the newest {@code keep} turns of {@code dir}, removes the checkpoint refs of the turns
   * no undo or commit can use any more (undone, committed, changed nothing, never finished),
   * oldest first; a turn whose changes may still be undone or committed is kept. {@code git gc}
   * then frees what only they held.
   *
   * @return how many turns' checkpoints went
   */
  public int prune(Path dir, int keep) {
    if (keep < 1) {
      throw new IllegalArgumentException("keep < 1: " + keep);
    }
    return new CheckpointPruner(git).prune(dir, keep);
  }

  /** Removes every checkpoint of {@code turnIds} (their chat was deleted). */
  public void forget(Path dir, Set<String> turnIds) {
    new CheckpointPruner(git).forget(dir, turnIds);
  }

  /** A commit made by {@link #commit}: the branch, its new commit id, the turns it holds. */
  public record Commit(String branch, String commit, List<String> turnIds) {}

  /**
   * Records the working tree in {@code dir} as {@code turnId}'s state before it, unless the turn
   * has that checkpoint already (a turn resumed after a crash keeps its first).
   */
  public void checkpoint(Path dir, String turnId) {
    String ref = ref(turnId, "before");
    if (git.resolve(dir, ref) == null) {
      String index = new TurnIndex(git).record(dir);
      if (index != null) {
        git.ok(dir, Map.of(), "update-ref", ref(turnId, "index"), index);
      }
      git.ok(dir, Map.of(), "update-ref", ref, snapshot(dir, "before turn " + turnId));
    }
  }

  /**
   * Records the working tree as {@code turnId}'s state after it and returns what changed since
   * its checkpoint (empty when nothing did).
   *
   * @throws WorkspaceException when the turn has no checkpoint here, or git fails
   */
  public TurnDiff finish(Path dir, String turnId) {
    String before = required(dir, turnId, "before");
    String after = snapshot(dir, "after turn " + turnId);
    git.ok(dir, Map.of(), "update-ref", ref(turnId, "after"), after);
    return diff(dir, before, after, turnId);
  }

  /** The changes {@code turnId} made (between its checkpoints), or empty when it recorded none. */
  public TurnDiff changes(Path dir, String turnId) {
    String before = git.resolve(dir, ref(turnId, "before"));
    String after = git.resolve(dir, ref(turnId, "after"));
    return before == null || after == null ? new TurnDiff(List.of(), "", false, null, null)
        : diff(dir, before, after, turnId);
  }

  /**
   * Reverts {@code turnId}'s changes in the working tree, only those (and what it staged of
   * them in the index, when its checkpoint recorded the index): refused (nothing changes)
   * when the turn was undone or committed already, or when later changes, by a later turn or by
   * the user, touched the same lines or files.
   *
   * @return what the undo changed, marked {@link TurnDiff#revertOf() as the revert of} the turn
   */
  public TurnDiff undo(Path dir, String turnId) {
    String before = required(dir, turnId, "before");
    String after = required(dir, turnId, "after");
    if (git.resolve(dir, ref(turnId, "undone")) != null) {
      throw new WorkspaceException("this turn's changes were undone already");
    }
    if (git.resolve(dir, ref(turnId, "committed")) != null) {
      throw new WorkspaceException("this turn's changes are committed already; undo only takes "
          + "back changes that are not committed yet");
    }
    if (git.ok(dir, Map.of(), "rev-parse", before + "^{tree}")
        .equals(git.ok(dir, Map.of(), "rev-parse", after + "^{tree}"))) {
      throw new WorkspaceException("this turn changed no files; there is nothing to undo");
    }
    Path patch = git.patch(dir, before, after);
    try {
      GitRunner.Result check = git.run(dir, Map.of(), "apply", "-R", "--check",
          patch.toString());
      if (check.exit() != 0) {
        throw new WorkspaceException("cannot undo this turn: " + GitErrors.changedSince(
            check.output()) + " changed after it (by a later turn or by you) where this turn "
            + "made its changes; undo the later turns first, or change it back by hand");
      }
      git.ok(dir, Map.of(), "apply", "-R", patch.toString());
    } finally {
      GitRunner.delete(patch);
    }
    new TurnIndex(git).restore(dir, ref(turnId, "index"), before, after);
    git.ok(dir, Map.of(), "update-ref", ref(turnId, "undone"), after);
    return diff(dir, after, before, turnId).asRevertOf(turnId);
  }

  /**
   * Commits the changes of {@code turnIds} (in that order; turns without changes, undone or
   * committed already are skipped) on {@code branch}: on top of the branch when it exists,
   * otherwise of {@code HEAD}. Neither the working tree, the index nor {@code HEAD} change;
   * changes that are no turn's (the user's own) are not in the commit.
   *
   * @throws WorkspaceException when there is nothing to commit, the branch is the one checked
   *     out or not a valid name, or a turn's patch does not apply (it builds on changes that are
   *     not committed)
   */
  public Commit commit(Path dir, List<String> turnIds, String branch, String message,
      String authorName, String authorEmail) {
    Objects.requireNonNull(message, "message");
    return commit(dir, turnIds, branch, committed -> message, authorName, authorEmail);
  }

  /**
   * {@link #commit(Path, List, String, String, String, String)} with the message made from the
   * turns it commits (those of {@code turnIds} that are not skipped), in order.
   */
  public Commit commit(Path dir, List<String> turnIds, String branch,
      Function<List<String>, String> message, String authorName, String authorEmail) {
    Objects.requireNonNull(message, "message");
    String ref = branchRef(dir, branch);
    String checkedOut = git.run(dir, Map.of(), "symbolic-ref", "-q", "HEAD").output().strip();
    if (ref.equals(checkedOut)) {
      throw new WorkspaceException("branch " + branch + " is the one checked out in the "
          + "workspace; commit the changes on another branch");
    }
    String tip = git.resolve(dir, ref);
    String base = tip != null ? tip : git.resolve(dir, "HEAD");
    if (base == null) {
      throw new WorkspaceException("the project has no commit yet to put a branch on");
    }
    List<String> pending = new ArrayList<>();
    for (String turnId : turnIds) {
      if (git.resolve(dir, ref(turnId, "after")) != null
          && git.resolve(dir, ref(turnId, "undone")) == null
          && git.resolve(dir, ref(turnId, "committed")) == null) {
        pending.add(turnId);
      }
    }
    if (pending.isEmpty()) {
      throw new WorkspaceException("nothing to commit: this chat's turns changed no files, or "
          + "their changes were undone or committed already");
    }
    Path index = GitRunner.tempIndex();
    try {
      Map<String, String> env = Map.of("GIT_INDEX_FILE", index.toString());
      git.ok(dir, env, "read-tree", base);
      for (String turnId : pending) {
        Path patch = git.patch(dir, required(dir, turnId, "before"),
            required(dir, turnId, "after"));
        try {
          GitRunner.Result r = git.run(dir, env, "apply", "--cached", patch.toString());
          if (r.exit() != 0) {
            throw new WorkspaceException("cannot commit: the agent changed "
                + GitErrors.changedSince(r.output()) + " on top of changes that are not in "
                + (tip != null ? "branch " + branch : "the last commit")
                + " (yours, from before the turn?); commit those first");
          }
        } finally {
          GitRunner.delete(patch);
        }
      }
      String tree = git.ok(dir, env, "write-tree");
      if (tree.equals(git.ok(dir, Map.of(), "rev-parse", base + "^{tree}"))) {
        throw new WorkspaceException("nothing to commit: the changes are in " + branch
            + " already");
      }
      String commit = git.ok(dir, GitRunner.identity(authorName, authorEmail), "commit-tree",
          tree, "-p", base, "-m", message.apply(List.copyOf(pending)));
      if (tip != null) {
        git.ok(dir, Map.of(), "update-ref", ref, commit, tip);
      } else {
        git.ok(dir, Map.of(), "update-ref", ref, commit);
      }
      for (String turnId : pending) {
        git.ok(dir, Map.of(), "update-ref", ref(turnId, "committed"), commit);
      }
      return new Commit(branch, commit, List.copyOf(pending));
    } finally {
      GitRunner.delete(index);
    }
  }

  /**
   * Pushes {@code branch} to {@code remote} (a remote's name or URL) under the same name, with
   * the drone's own git credentials; never forced. Git's refusals are told in people's words.
   */
  public void push(Path dir, String remote, String branch) {
    String ref = branchRef(dir, branch);
    if (git.resolve(dir, ref) == null) {
      throw new WorkspaceException("there is no branch " + branch + " in the workspace yet; "
          + "commit first");
    }
    GitRunner.Result r = git.run(dir, Map.of(), "push", SafeGit.RECEIVE_PACK, "--", remote,
        ref + ":" + ref);
    if (r.exit() != 0) {
      throw new WorkspaceException(GitErrors.push(remote, branch, r.output()));
    }
  }

  private String branchRef(Path dir, String branch) {
    Objects.requireNonNull(branch, "branch");
    if (branch.startsWith("-")
        || git.run(dir, Map.of(), "check-ref-format", "--branch", branch).exit() != 0) {
      throw new WorkspaceException("\"" + branch + "\" is not a valid branch name");
    }
    return "refs/heads/" + branch;
  }

  /** A commit of the working tree as {@code git add -A} sees it, without {@code .gadget/}. */
  private String snapshot(Path dir, String message) {
    Path index = GitRunner.tempIndex();
    try {
      String head = git.resolve(dir, "HEAD");
      Path userIndex = dir.resolve(git.ok(dir, Map.of(), "rev-parse", "--git-path", "index"));
      Map<String, String> env = Map.of("GIT_INDEX_FILE", index.toString());
      if (head != null && Files.isRegularFile(userIndex)) {
        // the user's index, copied: its file stats spare git hashing unchanged files again
        // with its time: git trusts the stat of a file changed in the same second as the index
        // only when the index is older (racy git); a copy made now would hide such a change
        Files.copy(userIndex, index, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
      } else if (head != null) {
        git.ok(dir, env, "read-tree", head);
      }
      List<String> add = new ArrayList<>(List.of("add", "-A", "--", ".", ":(exclude).gadget"));
      // A submodule's directory is the agent's to write (its .git included): git would run
      // its status, and so the filters its config names. Its recorded commit stays as it is.
      for (String gitlink : gitlinks(dir, env)) {
        add.add(":(exclude,literal)" + gitlink);
      }
      git.ok(dir, env, add.toArray(String[]::new));
      String tree = git.ok(dir, env, "write-tree");
      List<String> args = new ArrayList<>(List.of("commit-tree", tree, "-m", message));
      if (head != null) {
        args.addAll(List.of("-p", head));
      }
      return git.ok(dir, GADGET, args.toArray(String[]::new));
    } catch (IOException e) {
      throw new WorkspaceException("cannot record the working tree: " + e.getMessage(), e);
    } finally {
      GitRunner.delete(index);
    }
  }

  /** The paths of the submodules (gitlinks) in the index {@code env} names. */
  private List<String> gitlinks(Path dir, Map<String, String> env) {
    return git.records(dir, env, "ls-files", "-s", "-z").stream()
        .filter(r -> r.startsWith("160000 ")).map(GitRunner::pathOf).toList();
  }

  private TurnDiff diff(Path dir, String from, String to, String turnId) {
    return new DiffReader(git, maxPatchBytes).read(dir, from, to,
        "git diff " + ref(turnId, "before") + " " + ref(turnId, "after"));
  }

  private String required(Path dir, String turnId, String which) {
    String id = git.resolve(dir, ref(turnId, which));
    if (id == null) {
      throw new WorkspaceException("this workspace has no record of turn " + turnId
          + "'s changes");
    }
    return id;
  }

  private static String ref(String turnId, String which) {
    if (!turnId.matches("[A-Za-z0-9_-]{1,100}")) {
      throw new IllegalArgumentException("not a turn id: " + turnId);
    }
    return REF_PREFIX + turnId + "/" + which;
  }
}
