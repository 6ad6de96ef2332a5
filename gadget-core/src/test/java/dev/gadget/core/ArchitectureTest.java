package dev.gadget.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
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
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Rules about what core may depend on, what it exports, and how large a source file may grow. */
class ArchitectureTest {
  private static final Path MAIN = Paths.get("src/main/java");
  /** The reactor root: every module's sources are checked, not only core's. */
  private static final Path ROOT = Paths.get("..");
  private static final int MAX_LINES = 450;
  private static final String SEP = File.separator;
  private static final Set<String> SKIPPED_DIRS =
      Set.of("node_modules", "target", "vendor", ".git", ".mvn");
  private static final List<String> RUNTIME_INTERNALS =
      List.of("dev.gadget.core.server.internal", "dev.gadget.core.drone.internal");
  private static final Pattern FORBIDDEN = Pattern.compile(
      "^\\s*import\\s+(static\\s+)?(org\\.java_websocket|com\\.mongodb|org\\.bson|io\\.micrometer|io\\.lettuce|dev\\.gadget\\.(transport|store\\.mongo|cluster\\.redis|micrometer|examples))",
      Pattern.MULTILINE);

  @Test
  void coreImportsNoAdapterLibrary() throws IOException {
    List<String> offenders;
    try (Stream<Path> files = Files.walk(MAIN)) {
      offenders = files.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> FORBIDDEN.matcher(read(p)).find())
          .map(Path::toString)
          .collect(Collectors.toList());
    }
    assertThat(offenders).as("core sources importing an adapter's library").isEmpty();
  }

  @Test
  void theRuleCatchesAnOffender() {
    assertThat(FORBIDDEN.matcher("package x;\nimport org.java_websocket.WebSocket;\n").find())
        .isTrue();
    assertThat(FORBIDDEN.matcher("import com.mongodb.client.MongoClient;").find()).isTrue();
    assertThat(FORBIDDEN.matcher("import io.micrometer.core.instrument.Timer;").find()).isTrue();
    assertThat(FORBIDDEN.matcher("import java.util.List;").find()).isFalse();
  }

  @Test
  void moduleExportsApiAndSpiButNoInternalPackage() throws IOException {
    ModuleDescriptor descriptor = descriptor();
    assertThat(descriptor.name()).isEqualTo("dev.gadget.core");
    List<String> exported = descriptor.exports().stream()
        .filter(e -> !e.isQualified())
        .map(ModuleDescriptor.Exports::source).collect(Collectors.toList());
    assertThat(exported).contains("dev.gadget.core", "dev.gadget.core.spi", "dev.gadget.core.model");
    assertThat(exported).noneMatch(p -> p.contains(".internal"));
    // internal packages may be exported only to Gadget's own adapter modules
    assertThat(descriptor.exports()).filteredOn(ModuleDescriptor.Exports::isQualified)
        .allSatisfy(e -> assertThat(e.targets()).allMatch(t -> t.startsWith("dev.gadget.")));
    assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
        .doesNotContain("org.java_websocket", "org.mongodb.driver.sync.client");
  }

  @Test
  void serverAndDroneInternalsExistAndAreNotExported() throws IOException {
    // javac writes no ModulePackages attribute, so the packages are looked up as compiled
    for (String internal : RUNTIME_INTERNALS) {
      assertThat(Paths.get("target/classes", internal.split("\\.")))
          .as("compiled package %s", internal).isDirectoryContaining("glob:**.class");
    }
    ModuleDescriptor descriptor = descriptor();
    assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
        .doesNotContainAnyElementsOf(RUNTIME_INTERNALS);
    assertThat(descriptor.opens()).extracting(ModuleDescriptor.Opens::source)
        .doesNotContain("dev.gadget.core.server.internal");
  }

  @Test
  void nothingOutsideItsOwnPackageUsesARuntimeInternal() throws IOException {
    List<String> offenders;
    try (Stream<Path> files = sources(ROOT)) {
      offenders = files.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !p.getFileName().toString().equals("ArchitectureTest.java"))
          .filter(p -> !usesOnlyOwnInternals(read(p)))
          .map(Path::toString)
          .collect(Collectors.toList());
    }
    assertThat(offenders)
        .as("files outside dev.gadget.core.server (or .drone) using its internal package")
        .isEmpty();
  }

  @Test
  void theInternalRuleCatchesAnOffender() {
    String outsider = "package dev.gadget.examples;\n"
        + "import dev.gadget.core.server.internal.LiveTurns;\n";
    assertThat(usesOnlyOwnInternals(outsider)).isFalse();
    String insider = "package dev.gadget.core.server;\n"
        + "import dev.gadget.core.server.internal.LiveTurns;\n";
    assertThat(usesOnlyOwnInternals(insider)).isTrue();
    String droneUser = "package dev.gadget.core.server.internal;\n"
        + "class X { dev.gadget.core.drone.internal.JobRunner r; }\n";
    assertThat(usesOnlyOwnInternals(droneUser)).isFalse();
  }

  @Test
  void noSourceFileIsLongerThanOneSitting() throws IOException {
    List<String> tooLong;
    try (Stream<Path> files = sources(ROOT)) {
      tooLong = files
          .filter(p -> p.toString().contains("src" + SEP + "main" + SEP))
          .filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".js"))
          .filter(p -> lines(p) > MAX_LINES)
          .map(p -> p + " (" + lines(p) + " lines)")
          .collect(Collectors.toList());
    }
    assertThat(tooLong).as("main sources longer than %d lines", MAX_LINES).isEmpty();
  }

  /** Whether {@code source} names a runtime internal package only from inside its own package. */
  private static boolean usesOnlyOwnInternals(String source) {
    Matcher pkg = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;",
        Pattern.MULTILINE).matcher(source);
    String own = pkg.find() ? pkg.group(1) : "";
    for (String internal : RUNTIME_INTERNALS) {
      String parent = internal.substring(0, internal.length() - ".internal".length());
      boolean inside = own.equals(parent) || own.equals(internal);
      if (!inside && source.contains(internal)) {
        return false;
      }
    }
    return true;
  }

  /** Every module's own sources: no build output, no installed npm packages, no git data. */
  private static Stream<Path> sources(Path root) throws IOException {
    List<Path> found = new ArrayList<>();
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir,
          BasicFileAttributes attrs) {
        String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
        return SKIPPED_DIRS.contains(name) ? FileVisitResult.SKIP_SUBTREE
            : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file,
          BasicFileAttributes attrs) {
        if (attrs.isRegularFile() && file.toString().contains(SEP + "src" + SEP)) {
          found.add(file);
        }
        return FileVisitResult.CONTINUE;
      }
    });
    return found.stream();
  }

  private static long lines(Path p) {
    return read(p).lines().count();
  }

  private static ModuleDescriptor descriptor() throws IOException {
    try (InputStream in = Files.newInputStream(Paths.get("target/classes/module-info.class"))) {
      return ModuleDescriptor.read(in);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
