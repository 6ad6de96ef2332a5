package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.ToolException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The bubblewrap command line of {@code CommandSandbox}, and the probe that checks once per
 * executable that {@code bwrap} exists and can create namespaces here.
 */
public final class Bubblewrap {
  private static final Map<String, Optional<String>> PROBES = new ConcurrentHashMap<>();

  private Bubblewrap() {}

  /** Why {@code bwrap} cannot sandbox commands here, or empty when it can. Cached. */
  public static Optional<String> problem(String bwrap) {
    return PROBES.computeIfAbsent(bwrap, Bubblewrap::probe);
  }

  private static Optional<String> probe(String bwrap) {
    String exe = find(bwrap);
    if (exe == null) {
      return Optional.of("bubblewrap (" + bwrap + ") is not installed, so commands cannot run "
          + "in a sandbox; install it (Debian and Ubuntu: apt-get install bubblewrap) or choose "
          + "no sandbox (full access) explicitly");
    }
    try {
      Process p = new ProcessBuilder(exe, "--ro-bind", "/", "/", "--unshare-all",
          "--die-with-parent", "--dev", "/dev", "--proc", "/proc", "/bin/sh", "-c", "exit 0")
          .redirectErrorStream(true).start();
      p.getOutputStream().close();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.of("bubblewrap (" + exe + ") did not answer within 20 s");
      }
      String out = new String(p.getInputStream().readNBytes(2000), StandardCharsets.UTF_8).strip();
      if (p.exitValue() != 0) {
        return Optional.of("bubblewrap (" + exe + ") cannot create a sandbox here (exit code "
            + p.exitValue() + (out.isEmpty() ? "" : ": " + out.lines().findFirst().orElse(""))
            + "); allow unprivileged user namespaces or choose no sandbox (full access) "
            + "explicitly");
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("bubblewrap (" + exe + ") could not be started: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("the check of bubblewrap was interrupted");
    }
  }

  private static String find(String bwrap) {
    if (bwrap.contains("/")) {
      return Files.isExecutable(Path.of(bwrap)) ? bwrap : null;
    }
    String path = System.getenv("PATH");
    for (String dir : (path == null ? "/usr/bin:/bin" : path).split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, bwrap))) {
        return Path.of(dir, bwrap).toString();
      }
    }
    return null;
  }

  /**
   * A path of the host bound at {@code target} inside the sandbox, after everything else (so it
   * lies over what is there, a file of the project say); read-only unless {@code writable}.
   */
  public record Bind(Path source, Path target, boolean writable) {
    public Bind {
      java.util.Objects.requireNonNull(source, "source");
      java.util.Objects.requireNonNull(target, "target");
    }
  }

  /**
   * The argv before {@code /bin/sh -c command}: everything read-only, hidden paths empty and
   * read-only, a private {@code /tmp}, the project writable if {@code writable} but for its
   * {@code .git}.
   */
  public static List<String> argv(String bwrap, boolean writable, boolean network,
      Path projectDir, Collection<Path> hide, Collection<Path> readable) {
    return argv(bwrap, writable, network, projectDir, hide, readable, List.of());
  }

  /**
   * As {@link #argv(String, boolean, boolean, Path, Collection, Collection)}, then
   * {@code binds}.
   */
  public static List<String> argv(String bwrap, boolean writable, boolean network,
      Path projectDir, Collection<Path> hide, Collection<Path> readable, List<Bind> binds) {
    Path project = real(projectDir);
    List<Path> hidden = new ArrayList<>();
    String home = System.getProperty("user.home");
    if (home != null && !home.isBlank()) {
      hidden.add(real(Path.of(home)));
    }
    if (!network) {
      hidden.add(Path.of("/run"));
    }
    for (Path h : hide) {
      hidden.add(real(h));
    }
    Path parent = project.getParent();
    if (parent != null) {
      hidden.add(parent.resolve(".gadget"));
    }
    hidden.add(project.resolve(".gadget"));

    List<String> a = new ArrayList<>(List.of(find(bwrap) == null ? bwrap : find(bwrap),
        "--new-session", "--die-with-parent", "--unshare-all"));
    if (network) {
      a.add("--share-net");
    }
    a.addAll(List.of("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--tmpfs", "/tmp"));
    Path tmp = Path.of("/tmp");
    List<Path> outside = new ArrayList<>();
    List<Path> inside = new ArrayList<>();
    for (Path h : hidden) {
      boolean in = h.startsWith(project);
      if (!Files.isDirectory(h) || h.getParent() == null || h.equals(project)
          || !in && h.startsWith(tmp) || covered(h, hidden, project)
          || (in ? inside : outside).contains(h)) {
        continue;
      }
      (in ? inside : outside).add(h);
    }
    for (Path h : outside) {
      a.addAll(List.of("--tmpfs", h.toString()));
    }
    for (Path r : readable) {
      if (Files.isDirectory(r)) {
        a.addAll(List.of("--ro-bind", r.toString(), r.toString()));
      }
    }
    a.addAll(List.of(writable ? "--bind" : "--ro-bind", project.toString(), project.toString()));
    if (writable) {
      for (Path git : gitPaths(project)) {
        a.addAll(List.of("--ro-bind", git.toString(), git.toString()));
      }
    }
    for (Path h : inside) {
      a.addAll(List.of("--tmpfs", h.toString()));
    }
    for (Path h : outside) {
      a.addAll(List.of("--remount-ro", h.toString()));
    }
    for (Path h : inside) {
      a.addAll(List.of("--remount-ro", h.toString()));
    }
    for (Bind b : binds) {
      a.addAll(List.of(b.writable() ? "--bind" : "--ro-bind", b.source().toString(),
          b.target().toString()));
    }
    a.addAll(List.of("--chdir", project.toString(), "--"));
    return a;
  }

  /**
   * The project's {@code .git} (a directory, or a file naming the repository elsewhere, with
   * that repository): read-only inside the sandbox, since git runs what they hold (hooks, its
   * config's commands, attributes naming filters) when the drone uses the checkout.
   */
  static List<Path> gitPaths(Path project) {
    Path git = project.resolve(".git");
    if (Files.isDirectory(git, LinkOption.NOFOLLOW_LINKS)) {
      return List.of(git);
    }
    if (Files.isSymbolicLink(git)) {
      // a mount cannot hold a link in place: the agent could point it at a repository of its own
      throw new ToolException("commands are refused: the project's .git is a symbolic link, "
          + "which the sandbox cannot keep read-only; make it a directory (or a .git file)");
    }
    if (!Files.isRegularFile(git, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    try {
      String first = Files.readAllLines(git, StandardCharsets.UTF_8).stream().findFirst()
          .orElse("");
      if (first.startsWith("gitdir:")) {
        Path dir = project.resolve(first.substring(7).strip()).normalize();
        // one under /tmp but outside the project is not there at all (a private /tmp)
        if (Files.isDirectory(dir) && (dir.startsWith(project) || !dir.startsWith("/tmp"))) {
          return List.of(git, real(dir));
        }
      }
    } catch (IOException | RuntimeException e) {
      // an unreadable .git file: it is still made read-only
    }
    return List.of(git);
  }

  /**
   * Whether {@code h} lies in another hidden directory on the same side of the project's mount
   * (a hidden ancestor of the project hides everything in it but the project).
   */
  private static boolean covered(Path h, List<Path> hidden, Path project) {
    for (Path o : hidden) {
      if (!o.equals(h) && h.startsWith(o) && Files.isDirectory(o) && !o.equals(project)
          && o.startsWith(project) == h.startsWith(project)) {
        return true;
      }
    }
    return false;
  }

  private static Path real(Path p) {
    Path abs = p.toAbsolutePath().normalize();
    try {
      return abs.toRealPath();
    } catch (IOException e) {
      return abs;
    }
  }
}
