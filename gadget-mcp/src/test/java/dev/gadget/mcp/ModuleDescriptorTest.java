package dev.gadget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** The module exports its API package only and names the SDK's modules correctly. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackage() throws Exception {
    ModuleDescriptor descriptor;
    try (InputStream in = Files.newInputStream(Paths.get("target/classes/module-info.class"))) {
      descriptor = ModuleDescriptor.read(in);
    }
    assertThat(descriptor.name()).isEqualTo("dev.gadget.mcp");
    assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.gadget.mcp");
    assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
        .contains("dev.gadget.core", "io.modelcontextprotocol.sdk.mcp.core",
            "io.modelcontextprotocol.sdk.mcp.json.jackson2", "reactor.core");
  }

  @Test
  void theRequiredNamesAreTheSdksAutomaticModuleNames() throws Exception {
    assertThat(automaticName(io.modelcontextprotocol.client.McpClient.class))
        .isEqualTo("io.modelcontextprotocol.sdk.mcp.core");
    assertThat(automaticName(io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper.class))
        .isEqualTo("io.modelcontextprotocol.sdk.mcp.json.jackson2");
    assertThat(automaticName(reactor.core.publisher.Mono.class)).isEqualTo("reactor.core");
  }

  private static String automaticName(Class<?> type) throws Exception {
    var location = type.getProtectionDomain().getCodeSource().getLocation();
    try (var jar = new java.util.jar.JarFile(Paths.get(location.toURI()).toFile())) {
      return jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
    }
  }
}
