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
 * through a {@code .gadget} directory.
 */
public final class ProjectPaths {
  /** Gadget's own directory ({@code .gadget/}): never read, written or listed by the agent. */
  public static final String GADGET_DIR = ".gadget";

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
      if (part.toString().equals(GADGET_DIR)) {
        throw new ToolException("path refused: \"" + raw + "\" is in a " + GADGET_DIR
            + " directory, which belongs to Gadget and is out of the agent's reach");
      }
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
    return real.resolve(existing.relativize(target));
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
