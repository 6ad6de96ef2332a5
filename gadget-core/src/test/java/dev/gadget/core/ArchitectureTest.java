package dev.gadget.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Rules about what core may depend on and what it exports. */
class ArchitectureTest {
  private static final Path MAIN = Paths.get("src/main/java");
  private static final Pattern FORBIDDEN = Pattern.compile(
      "^\\s*import\\s+(static\\s+)?(org\\.java_websocket|com\\.mongodb|org\\.bson|dev\\.gadget\\.(transport|store\\.mongo|examples))",
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
    assertThat(FORBIDDEN.matcher("import java.util.List;").find()).isFalse();
  }

  @Test
  void moduleExportsApiAndSpiButNoInternalPackage() throws IOException {
    ModuleDescriptor descriptor;
    try (InputStream in = Files.newInputStream(Paths.get("target/classes/module-info.class"))) {
      descriptor = ModuleDescriptor.read(in);
    }
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

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
