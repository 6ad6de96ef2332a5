package dev.gadget.core.agent.tools;

import dev.gadget.core.agent.ToolContext;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.BiPredicate;

/**
 * Walks the files under a directory for glob and grep: symbolic links are not followed into
 * directories, {@code .git} is skipped, and the walk stops when the run is cancelled.
 */
final class TreeWalk {
  private TreeWalk() {}

  /**
   * Visits every file under {@code base} in name order until {@code visitor} returns
   * {@code false}.
   *
   * @param visitor gets the file and its path relative to {@code base} ({@code /}-separated)
   */
  static void files(Path base, ToolContext context, BiPredicate<Path, String> visitor)
      throws IOException {
    Files.walkFileTree(base, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        if (context.isCancelled()) {
          return FileVisitResult.TERMINATE;
        }
        if (!dir.equals(base) && dir.getFileName().toString().equals(".git")) {
          return FileVisitResult.SKIP_SUBTREE;
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (context.isCancelled()) {
          return FileVisitResult.TERMINATE;
        }
        String rel = base.relativize(file).toString().replace('\\', '/');
        return visitor.test(file, rel) ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException exc) {
        return FileVisitResult.CONTINUE;
      }
    });
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
