package dev.gadget.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Model-safe names: server__tool, letters, digits and _, at most 64 characters. */
class ToolNamesTest {
  @Test
  void namespacesAndReplacesWhatModelsRefuse() {
    assertThat(ToolNames.of("fs", "read_text_file")).isEqualTo("fs__read_text_file");
    assertThat(ToolNames.of("my-server", "get.thing-now")).isEqualTo("my_server__get_thing_now");
  }

  @Test
  void longNamesAreCutWithAHashSoTheyStayApart() {
    String a = ToolNames.of("server", "x".repeat(80) + "a");
    String b = ToolNames.of("server", "x".repeat(80) + "b");
    assertThat(a).hasSize(64).startsWith("server__xxx").matches("[A-Za-z0-9_]+");
    assertThat(a).isNotEqualTo(b);
  }
}
