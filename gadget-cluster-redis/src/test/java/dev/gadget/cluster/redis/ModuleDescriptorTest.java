package dev.gadget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** The module exports its API package only and names Lettuce's module correctly. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackage() throws IOException {
    ModuleDescriptor descriptor;
    try (InputStream in = Files.newInputStream(Paths.get("target/classes/module-info.class"))) {
      descriptor = ModuleDescriptor.read(in);
    }
    assertThat(descriptor.name()).isEqualTo("dev.gadget.cluster.redis");
    assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.gadget.cluster.redis");
    assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
        .contains("dev.gadget.core", "lettuce.core", "org.slf4j");
  }

  @Test
  void theRequiredNameIsLettucesAutomaticModuleName() throws Exception {
    var location = io.lettuce.core.RedisClient.class.getProtectionDomain().getCodeSource()
        .getLocation();
    try (var jar = new java.util.jar.JarFile(Paths.get(location.toURI()).toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
          .isEqualTo("lettuce.core");
    }
  }
}
