package dev.gadget.core.drone.internal;

import dev.gadget.core.drone.WorkspaceException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The command line and environment of every git the drone runs (clone, fetch, checkout,
 * checkpoints, diff, undo, commit, push), so that nothing written into a repository is executed:
 * a repository's {@code .git} is data, whoever wrote it.
 *
 * <ul>
 *   <li>Always ({@link #FIXED}): no hooks ({@code core.hooksPath=/dev/null}), no fsmonitor, no
 *       {@code ext::} remotes, no recursion into submodules (whose config is another
 *       repository's), no signing or signature checks, no pager or editor, no
 *       {@code core.alternateRefsCommand}, no {@code core.gitProxy}.
 *   <li>From the repository's own config ({@code local} and {@code worktree} scopes, includes
 *       followed), each setting that names a program is {@link #overrides overridden}: filter
 *       drivers become empty (no filter), credential helpers are reset to the user's and the
 *       system's, {@code core.sshCommand} and {@code gpg.program} to the user's or the default,
 *       {@code pager.*} off and {@code diff.*.textconv} to {@code cat}. Flags do the rest:
 *       {@link #UPLOAD_PACK} and {@link #RECEIVE_PACK} (a remote's {@code uploadpack} and
 *       {@code receivepack}), and {@code --no-ext-diff --no-textconv} in every diff the drone
 *       asks for (external diff drivers).
 *   <li>The environment pins the repository ({@code GIT_DIR}, {@code GIT_WORK_TREE}: no
 *       {@code core.worktree}, no discovery of another one), never prompts, and sets
 *       {@code GIT_PAGER}, {@code GIT_EDITOR} and {@code GIT_ASKPASS} to harmless programs.
 * </ul>
 *
 * <p>The user's global and system config still apply, so push and fetch use the user's real
 * credentials (helpers, ssh keys, {@code core.sshCommand}), which live outside the project.
 */
public final class SafeGit {
  /** Settings given on every git command line. */
  static final List<String> FIXED = List.of(
      "protocol.ext.allow=never",
      "core.hooksPath=/dev/null",
      "core.fsmonitor=false",
      "core.alternateRefsCommand=",
      "core.pager=cat",
      "core.editor=true",
      "sequence.editor=true",
      "submodule.recurse=false",
      "fetch.recurseSubmodules=false",
      "push.recurseSubmodules=no",
      "diff.ignoreSubmodules=dirty",
      "diff.submodule=short",
      "status.submoduleSummary=false",
      "commit.gpgSign=false",
      "tag.gpgSign=false",
      "push.gpgSign=false",
      "merge.verifySignatures=false",
      "log.showSignature=false");

  /**
   * For every fetch and clone: git's own upload-pack, whatever a remote's {@code uploadpack}
   * says (a repository's value would win over a {@code -c} one: it is a list).
   */
  public static final String UPLOAD_PACK = "--upload-pack=git-upload-pack";
  /** For every push: git's own receive-pack, whatever a remote's {@code receivepack} says. */
  public static final String RECEIVE_PACK = "--receive-pack=git-receive-pack";

  private static final int MAX_LISTING = 1 << 20;

  private SafeGit() {}

  /**
   * The command line that runs {@code git args} in {@code repo} (a working tree with its
   * {@code .git}; null for a command outside any repository, such as a clone): the fixed
   * settings, then the overrides of the repository's own config, read with {@code env}.
   *
   * @throws WorkspaceException if the repository's config cannot be read
   */
  public static List<String> command(Path repo, Map<String, String> env, Duration timeout,
      List<String> args) {
    List<String> cmd = new ArrayList<>(List.of("git"));
    for (String setting : FIXED) {
      cmd.add("-c");
      cmd.add(setting);
    }
    if (repo != null) {
      for (String setting : overrides(listing(repo, env, timeout))) {
        cmd.add("-c");
        cmd.add(setting);
      }
    }
    cmd.addAll(args);
    return cmd;
  }

  /**
   * Sets {@code env} (a process builder's, the drone's own) for a git run in {@code repo} (null:
   * none): the repository pinned, no prompts, harmless pager, editor and askpass.
   */
  public static void environment(Map<String, String> env, Path repo) {
    env.remove("GIT_DIR");
    env.remove("GIT_WORK_TREE");
    env.remove("GIT_INDEX_FILE");
    env.remove("GIT_CONFIG_PARAMETERS");
    env.remove("GIT_CONFIG_COUNT");
    env.remove("GIT_EXTERNAL_DIFF");
    env.remove("GIT_CONFIG");
    env.remove("GIT_COMMON_DIR");
    env.remove("GIT_OBJECT_DIRECTORY");
    env.remove("GIT_ALTERNATE_OBJECT_DIRECTORIES");
    if (!env.containsKey("GIT_PROXY_COMMAND")) {
      env.put("GIT_PROXY_COMMAND", ""); // no core.gitProxy (git:// only): a repository's would run
    }
    env.put("GIT_TERMINAL_PROMPT", "0");
    env.put("GIT_ASKPASS", "true");
    env.put("GIT_PAGER", "cat");
    env.put("GIT_EDITOR", "true");
    env.put("GIT_SEQUENCE_EDITOR", "true");
    if (repo != null) {
      Path dir = repo.toAbsolutePath().normalize();
      env.put("GIT_DIR", dir.resolve(".git").toString());
      env.put("GIT_WORK_TREE", dir.toString());
    }
  }

  /** {@code git config --list} of every scope, includes followed, for {@code repo}. */
  private static String listing(Path repo, Map<String, String> env, Duration timeout) {
    List<String> cmd = new ArrayList<>(List.of("git"));
    for (String setting : FIXED) {
      cmd.add("-c");
      cmd.add(setting);
    }
    cmd.addAll(List.of("config", "--null", "--list", "--show-scope", "--includes"));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(repo.toFile())
        .redirectError(ProcessBuilder.Redirect.DISCARD);
    environment(pb.environment(), repo);
    pb.environment().putAll(env);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new WorkspaceException("cannot run git: " + e.getMessage(), e);
    }
    try {
      p.getOutputStream().close();
      byte[] out;
      try (InputStream in = p.getInputStream()) {
        out = in.readNBytes(MAX_LISTING);
      }
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
        throw new WorkspaceException("cannot read the git config of " + repo
            + (p.isAlive() ? ": git took longer than " + timeout.toSeconds() + " s"
            : ": git config failed (exit " + p.exitValue() + "); is .git/config valid?"));
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new WorkspaceException("cannot read the git config of " + repo + ": "
          + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WorkspaceException("interrupted while reading the git config of " + repo, e);
    } finally {
      p.destroyForcibly();
    }
  }

  /** One setting of a listing. */
  record Entry(String scope, String key, String value) {
    boolean fromRepository() {
      return scope.equals("local") || scope.equals("worktree");
    }
  }

  /** The entries of {@code git config --null --list --show-scope} output. */
  static List<Entry> parse(String listing) {
    List<Entry> entries = new ArrayList<>();
    String[] parts = listing.split("\0", -1);
    for (int i = 0; i + 1 < parts.length; i += 2) {
      String kv = parts[i + 1];
      int nl = kv.indexOf('\n');
      entries.add(new Entry(parts[i], nl < 0 ? kv : kv.substring(0, nl),
          nl < 0 ? null : kv.substring(nl + 1)));
    }
    return entries;
  }

  /**
   * The {@code -c} settings (without {@code -c}) that neutralize every program named by the
   * repository's own config in {@code listing} ({@code git config --null --list --show-scope}).
   */
  static List<String> overrides(String listing) {
    List<Entry> entries = parse(listing);
    Map<String, List<String>> settings = new LinkedHashMap<>();
    for (Entry e : entries) {
      if (!e.fromRepository()) {
        continue;
      }
      String lower = e.key().toLowerCase(Locale.ROOT);
      int first = lower.indexOf('.');
      int last = lower.lastIndexOf('.');
      if (first < 0) {
        continue;
      }
      String section = lower.substring(0, first);
      String name = lower.substring(last + 1);
      String sub = first == last ? null : e.key().substring(first + 1, last);
      String key = e.key();
      if (section.equals("filter") && sub != null
          && (name.equals("clean") || name.equals("smudge") || name.equals("process"))) {
        settings.put(key, List.of(key + "="));
        settings.put("filter." + sub + ".required",
            List.of("filter." + sub + ".required=false"));
      } else if (section.equals("credential") && name.equals("helper")) {
        List<String> reset = new ArrayList<>(List.of(key + "="));
        for (Entry o : entries) {
          if (!o.fromRepository() && o.key().equalsIgnoreCase(key) && o.value() != null) {
            reset.add(key + "=" + o.value());
          }
        }
        settings.put(lowerKey(key), reset);
      } else if (lower.equals("core.sshcommand")) {
        settings.put(lower, List.of(key + "=" + userValue(entries, key, "ssh")));
      } else if (section.equals("gpg") && name.equals("program")) {
        String fallback = sub == null || sub.equalsIgnoreCase("openpgp") ? "gpg"
            : sub.equalsIgnoreCase("x509") ? "gpgsm" : "ssh-keygen";
        settings.put(lowerKey(key), List.of(key + "=" + userValue(entries, key, fallback)));
      } else if (section.equals("pager")) {
        settings.put(lowerKey(key), List.of(key + "=false"));
      } else if (section.equals("diff") && sub != null && name.equals("textconv")) {
        settings.put(lowerKey(key), List.of(key + "=cat"));
      }
    }
    List<String> out = new ArrayList<>();
    settings.values().forEach(out::addAll);
    return out;
  }

  private static String lowerKey(String key) {
    int first = key.indexOf('.');
    int last = key.lastIndexOf('.');
    return key.substring(0, first).toLowerCase(Locale.ROOT) + key.substring(first, last + 1)
        + key.substring(last + 1).toLowerCase(Locale.ROOT);
  }

  /** The last value of {@code key} from outside the repository (the user's), or the default. */
  private static String userValue(List<Entry> entries, String key, String fallback) {
    String value = fallback;
    for (Entry o : entries) {
      if (!o.fromRepository() && o.key().equalsIgnoreCase(key) && o.value() != null) {
        value = o.value();
      }
    }
    return value;
  }
}
