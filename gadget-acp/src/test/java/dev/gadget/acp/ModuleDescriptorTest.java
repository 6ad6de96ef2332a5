package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** The module exports its API package only; the JSON-RPC plumbing stays internal. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackage() throws Exception {
    ModuleDescriptor descriptor;
    try (InputStream in = Files.newInputStream(Paths.get("target/classes/module-info.class"))) {
      descriptor = ModuleDescriptor.read(in);
    }
    assertThat(descriptor.name()).isEqualTo("dev.gadget.acp");
    assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.gadget.acp");
    assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
        .contains("dev.gadget.core", "dev.gadget.mcp");
  }
}
