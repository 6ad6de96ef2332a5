package dev.gadget.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module exports its API package only and names the driver's modules correctly. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackage() throws IOException {
    ModuleDescriptor descriptor;
    try (InputStream in = Files.newInputStream(Paths.get("target/classes/module-info.class"))) {
      descriptor = ModuleDescriptor.read(in);
    }
    assertThat(descriptor.name()).isEqualTo("dev.gadget.store.mongo");
    assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.gadget.store.mongo");
    assertThat(descriptor.opens()).isEmpty();
    Map<String, Boolean> requires = descriptor.requires().stream().collect(Collectors.toMap(
        ModuleDescriptor.Requires::name,
        r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)));
    assertThat(requires).containsEntry("dev.gadget.core", true)
        .containsEntry("org.mongodb.driver.sync.client", true)
        .containsEntry("org.mongodb.driver.core", true)
        .containsEntry("org.mongodb.bson", false)
        .containsEntry("org.slf4j", false);
  }

  @Test
  void theRequiredNamesAreTheDriversAutomaticModuleNames() {
    assertThat(automaticName(com.mongodb.client.MongoClient.class))
        .isEqualTo("org.mongodb.driver.sync.client");
    assertThat(automaticName(com.mongodb.MongoClientSettings.class))
        .isEqualTo("org.mongodb.driver.core");
    assertThat(automaticName(org.bson.Document.class)).isEqualTo("org.mongodb.bson");
  }

  private static String automaticName(Class<?> type) {
    try {
      var location = type.getProtectionDomain().getCodeSource().getLocation();
      try (var jar = new java.util.jar.JarFile(Paths.get(location.toURI()).toFile())) {
        return jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
