package dev.gadget.core.drone;

import dev.gadget.core.drone.internal.SafeGit;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code git} to clone a project into a workspace or fetch it again. Never prompts for
 * credentials ({@code GIT_TERMINAL_PROMPT=0}), never runs what a repository names (hooks,
 * filters, helpers from its config: {@link SafeGit}) nor a remote helper that executes commands
 * ({@code protocol.ext.allow=never}), passes URLs after {@code --}, and gives up after a timeout.
 */
public final class Git {
  private static final Logger log = LoggerFactory.getLogger(Git.class);

  private final Duration timeout;

  /** Git with a timeout for each command. */
  public Git(Duration timeout) {
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * Makes sure {@code gitUrl} is checked out in {@code dir}: clones it when {@code dir} has no
   * repository, otherwise fetches (a failed fetch is logged; the existing checkout is used).
   *
   * @return whether it cloned
   * @throws WorkspaceException if the clone fails
   */
  public boolean cloneOrFetch(String gitUrl, Path dir) {
    return checkout(gitUrl, dir) == Checkout.CLONED;
  }

  /** What {@link #checkout} did. */
  public enum Checkout {
    /** Cloned: the working tree is the remote's. */
    CLONED,
    /**
     * Fetched, and the working tree is up to date with its upstream branch (it was, or a
     * fast-forward brought it there).
     */
    SYNCED,
    /**
     * The fetch failed, or the checkout is not its upstream's (local commits, a detached head,
     * no upstream, or changes a fast-forward would overwrite): it is used as it is.
     */
    NOT_SYNCED
  }

  /**
   * Like {@link #cloneOrFetch}, and after a successful fetch fast-forwards the checked-out branch
   * to its upstream when it can ({@code merge --ff-only}: never a reset, never a merge commit,
   * never over local changes it would overwrite), saying whether the tree is now up to date.
   *
   * @throws WorkspaceException if the clone fails
   */
  public Checkout checkout(String gitUrl, Path workingDir) {
    Path dir = workingDir.toAbsolutePath().normalize();
    if (Files.isDirectory(dir.resolve(".git"))) {
      try {
        // one remote at a time: "fetch --all" starts a fetch per remote without --upload-pack
        for (String remote : run(dir, "remote").split("\n")) {
          if (!remote.isBlank() && !remote.startsWith("-")) {
            run(dir, "fetch", "--quiet", "--prune", SafeGit.UPLOAD_PACK, remote.strip());
          }
        }
      } catch (WorkspaceException e) {
        log.warn("git fetch in {} failed, working on the existing checkout: {}", dir,
            e.getMessage());
        return Checkout.NOT_SYNCED;
      }
      try {
        run(dir, "merge", "--ff-only", "--quiet", "--no-stat", "@{upstream}");
        String heads = run(dir, "rev-parse", "HEAD", "@{upstream}");
        String[] ids = heads.strip().split("\\s+");
        return ids.length == 2 && ids[0].equals(ids[1]) ? Checkout.SYNCED : Checkout.NOT_SYNCED;
      } catch (WorkspaceException e) {
        log.info("{} is not its upstream's after the fetch: {}", dir, e.getMessage());
        return Checkout.NOT_SYNCED;
      }
    }
    if (Files.exists(dir)) {
      try (var entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          throw new WorkspaceException(dir + " exists, is not empty and is not a git repository");
        }
      } catch (IOException e) {
        throw new WorkspaceException("cannot read " + dir + ": " + e.getMessage(), e);
      }
    }
    run(dir.getParent(), "clone", "--quiet", SafeGit.UPLOAD_PACK, "--", gitUrl,
        dir.getFileName().toString());
    return Checkout.CLONED;
  }

  /** Runs git; what it printed (at most 16 KB). */
  private String run(Path cwd, String... args) {
    // a clone runs outside any repository; the rest in the checkout, with its config checked
    Path repo = args[0].equals("clone") ? null : cwd;
    ProcessBuilder pb = new ProcessBuilder(SafeGit.command(repo, Map.of(), timeout,
        List.of(args))).directory(cwd.toFile()).redirectErrorStream(true);
    SafeGit.environment(pb.environment(), repo);
    Path log;
    Process p;
    try {
      log = Files.createTempFile("gadget-git", ".log");
      pb.redirectOutput(log.toFile());
      p = pb.start();
    } catch (IOException e) {
      throw new WorkspaceException("cannot run git: " + e.getMessage(), e);
    }
    try {
      p.getOutputStream().close();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new WorkspaceException("git " + args[0] + " timed out after " + timeout);
      }
      byte[] out;
      try (InputStream in = Files.newInputStream(log)) {
        out = in.readNBytes(16_384);
      }
      if (p.exitValue() != 0) {
        // git may echo the URL; never pass on credentials in it
        String said = new String(out, StandardCharsets.UTF_8).strip()
            .replaceAll("([A-Za-z][A-Za-z0-9+.-]*://)[^/@\\s]*@", "$1");
        throw new WorkspaceException("git " + args[0] + " failed (exit " + p.exitValue() + "): "
            + said);
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new WorkspaceException("git " + args[0] + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new WorkspaceException("interrupted while running git " + args[0], e);
    } finally {
      try {
        Files.deleteIfExists(log);
      } catch (IOException e) {
        // a leftover temporary file is harmless
      }
    }
  }
}
