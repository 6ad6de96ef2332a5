package dev.gadget.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module exports its one package and names Micrometer's automatic module correctly. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackageAndRequiresCoreAndMicrometer() throws Exception {
    ModuleDescriptor descriptor;
    try (InputStream in = Files.newInputStream(Paths.get("target/classes/module-info.class"))) {
      descriptor = ModuleDescriptor.read(in);
    }
    assertThat(descriptor.name()).isEqualTo("dev.gadget.micrometer");
    assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.gadget.micrometer");
    Map<String, Boolean> requires = descriptor.requires().stream().collect(Collectors.toMap(
        ModuleDescriptor.Requires::name,
        r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)));
    assertThat(requires).containsEntry("dev.gadget.core", true)
        .containsEntry("micrometer.core", true);
    try (JarFile jar = new JarFile(Paths.get(MeterRegistry.class.getProtectionDomain()
        .getCodeSource().getLocation().toURI()).toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
          .isEqualTo("micrometer.core");
    }
  }
}
