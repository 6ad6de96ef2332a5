package dev.gadget.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** docs/ARCHITECTURE.md names a real file for every step of a prompt's path. */
class ArchitectureDocTest {
  private static final Path ROOT = Paths.get("..");
  private static final Pattern FILE_NAME =
      Pattern.compile("`([\\w./-]+\\.(?:java|js|md))`");
  private static final Pattern STEP = Pattern.compile("(?m)^\\d+\\. \\*\\*");
  private static final Set<String> SKIPPED_DIRS = Set.of("node_modules", "target", ".git");

  private static String doc;
  private static List<String> repoFiles;

  @BeforeAll
  static void read() throws IOException {
    doc = Files.readString(ROOT.resolve("docs/ARCHITECTURE.md"));
    repoFiles = new ArrayList<>();
    Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        Path name = dir.getFileName();
        return name != null && SKIPPED_DIRS.contains(name.toString())
            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        repoFiles.add(ROOT.relativize(file).toString().replace('\\', '/'));
        return FileVisitResult.CONTINUE;
      }
    });
  }

  @Test
  void everyFileItNamesExists() {
    List<String> named = fileNames(doc);
    assertThat(named).hasSizeGreaterThan(40);
    assertThat(named).as("files named in docs/ARCHITECTURE.md that do not exist")
        .filteredOn(name -> !exists(name)).isEmpty();
  }

  @Test
  void everyStepOfThePromptsPathNamesAFile() {
    String path = doc.substring(doc.indexOf("## The path of one prompt"));
    String[] steps = STEP.split(path);
    // steps[0] is the heading; page, wire, server, drone, agent loop, LLM, tools, back, store, page
    assertThat(steps).hasSizeGreaterThanOrEqualTo(11);
    for (int i = 1; i < steps.length; i++) {
      assertThat(fileNames(steps[i])).as("step %d of the prompt's path names no file", i)
          .isNotEmpty();
    }
  }

  @Test
  void theCheckCatchesAMissingFile() {
    assertThat(exists("core/server/internal/LiveTurns.java")).isTrue();
    assertThat(exists("LiveTurns.java")).isTrue();
    assertThat(exists("core/server/internal/NoSuchPart.java")).isFalse();
    assertThat(exists("server/LiveTurns.java")).isFalse();
  }

  private static List<String> fileNames(String text) {
    List<String> names = new ArrayList<>();
    Matcher m = FILE_NAME.matcher(text);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  /** A file whose path ends with {@code name}, matched on whole path segments. */
  private static boolean exists(String name) {
    return repoFiles.stream().anyMatch(f -> f.equals(name) || f.endsWith("/" + name));
  }
}
