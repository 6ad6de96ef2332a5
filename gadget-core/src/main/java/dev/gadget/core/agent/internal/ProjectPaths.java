package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Confines the model's paths to a project directory. Pure apart from looking at the file system.
 * Refused: absolute paths (and {@code ~}), any {@code ..} segment, and paths whose deepest
 * existing part resolves (through symbolic links) outside the project or not at all, and paths
 * through a {@code .gadget} directory or a {@code .git} one (or to a {@code .git} file), named or
 * reached through a symbolic link: git runs what a repository's {@code .git} holds (hooks, its
 * config's commands), so the agent never writes there, and its config may hold credentials.
 */
public final class ProjectPaths {
  /** Gadget's own directory ({@code .gadget/}): never read, written or listed by the agent. */
  public static final String GADGET_DIR = ".gadget";
  /** Git's own directory: never read or written by the file tools (git commands read it). */
  public static final String GIT_DIR = ".git";

  private final Path root;

  /**
   * Confinement to {@code projectDir}.
   *
   * @throws IOException if the directory does not exist
   */
  public ProjectPaths(Path projectDir) throws IOException {
    this.root = projectDir.toRealPath();
    if (!Files.isDirectory(root)) {
      throw new IOException("not a directory: " + projectDir);
    }
  }

  /** The project directory, symbolic links resolved. */
  public Path root() {
    return root;
  }

  /** Resolves {@code raw}; see the class comment for what is refused. */
  public Path resolve(String raw) {
    if (raw == null) {
      throw new ToolException("a path is required");
    }
    String path = raw.strip();
    if (path.isEmpty() || path.equals(".")) {
      return root;
    }
    if (path.indexOf('\0') >= 0) {
      throw new ToolException("path refused: it contains a NUL character");
    }
    if (path.startsWith("/") || path.startsWith("\\") || path.startsWith("~")
        || path.matches("^[A-Za-z]:.*")) {
      throw new ToolException("path refused: \"" + raw + "\" is absolute; give a path relative "
          + "to the project directory (you cannot leave it)");
    }
    Path relative;
    try {
      relative = Paths.get(path);
    } catch (InvalidPathException e) {
      throw new ToolException("path refused: \"" + raw + "\" is not a valid path: "
          + e.getReason());
    }
    if (relative.isAbsolute()) {
      throw new ToolException("path refused: \"" + raw + "\" is absolute; give a path relative "
          + "to the project directory (you cannot leave it)");
    }
    for (Path part : relative) {
      if (part.toString().equals("..")) {
        throw new ToolException("path refused: \"" + raw + "\" contains \"..\"; paths must stay "
            + "inside the project directory");
      }
      refuseOwn(raw, part);
    }
    Path target = root.resolve(relative).normalize();
    Path existing = target;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null || !existing.startsWith(root)) {
      throw new ToolException("path refused: \"" + raw + "\" is outside the project directory");
    }
    Path real;
    try {
      real = existing.toRealPath();
    } catch (IOException e) {
      throw new ToolException("path refused: \"" + display(existing) + "\" is a symbolic link "
          + "that resolves nowhere");
    }
    if (!real.startsWith(root)) {
      throw new ToolException("path refused: \"" + raw + "\" goes through a symbolic link that "
          + "resolves outside the project directory");
    }
    Path resolved = real.resolve(existing.relativize(target));
    for (Path part : root.relativize(resolved)) {
      refuseOwn(raw, part);
    }
    return resolved;
  }

  /** Refuses a path through Gadget's {@code .gadget} or git's {@code .git}. */
  private static void refuseOwn(String raw, Path part) {
    if (part.toString().equals(GADGET_DIR)) {
      throw new ToolException("path refused: \"" + raw + "\" is in a " + GADGET_DIR
          + " directory, which belongs to Gadget and is out of the agent's reach");
    }
    if (part.toString().equalsIgnoreCase(GIT_DIR)) {
      throw new ToolException("path refused: \"" + raw + "\" is in git's own " + GIT_DIR
          + " (git runs the hooks and commands it holds, so only Gadget writes there); read "
          + "the history with git commands in run_command, and leave commits to the user");
    }
  }

  /** Whether {@code file} (found by walking the tree) really is inside the project. */
  public boolean isInside(Path file) {
    try {
      return file.toRealPath().startsWith(root);
    } catch (IOException e) {
      return false;
    }
  }

  /** {@code file} relative to the project, {@code /}-separated; {@code .} for the root. */
  public String display(Path file) {
    Path abs = file.toAbsolutePath().normalize();
    if (!abs.startsWith(root)) {
      return abs.toString();
    }
    String rel = root.relativize(abs).toString().replace('\\', '/');
    return rel.isEmpty() ? "." : rel;
  }
}
