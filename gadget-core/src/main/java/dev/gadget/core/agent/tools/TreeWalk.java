package dev.gadget.core.agent.tools;

import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.internal.ProjectPaths;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * Walks the files under a directory for glob and grep, depth first in name order: symbolic links
 * are never followed into directories, {@code .git} is skipped, unreadable directories are passed
 * over, and the walk stops when the run is cancelled.
 */
final class TreeWalk {
  private TreeWalk() {}

  /**
   * Visits every file under {@code base} until {@code visitor} returns {@code false}.
   *
   * @param visitor gets the file and its path relative to {@code base} ({@code /}-separated)
   */
  static void files(Path base, ToolContext context, BiPredicate<Path, String> visitor)
      throws IOException {
    walk(base, base, context, visitor);
  }

  private static boolean walk(Path base, Path dir, ToolContext context,
      BiPredicate<Path, String> visitor) {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      stream.forEach(entries::add);
    } catch (IOException e) {
      return true;
    }
    entries.sort(null);
    for (Path p : entries) {
      if (context.isCancelled()) {
        return false;
      }
      if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
        String dirName = p.getFileName().toString();
        if (!dirName.equals(".git") && !dirName.equals(ProjectPaths.GADGET_DIR) && !walk(base, p, context, visitor)) {
          return false;
        }
      } else if (!visitor.test(p, base.relativize(p).toString().replace('\\', '/'))) {
        return false;
      }
    }
    return true;
  }

  /** Whether reading {@code file} stays inside the project (a symbolic link may lead out). */
  static boolean readable(Path file, ToolContext context) {
    if (!Files.isSymbolicLink(file)) {
      return Files.isRegularFile(file);
    }
    try {
      Path real = file.toRealPath();
      return real.startsWith(context.projectDir()) && Files.isRegularFile(real);
    } catch (IOException e) {
      return false;
    }
  }
}
