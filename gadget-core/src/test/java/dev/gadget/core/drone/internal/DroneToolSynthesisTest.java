package dev.gadget.core.drone.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a turn is offered {@code create_tool} (and {@code save_pattern}): only when the drone
 * allows it (off by default), the chat does not say no, and commands are not read-only.
 */
class DroneToolSynthesisTest {
  @TempDir Path tmp;

  private List<String> offered(boolean drone, Boolean chat, SandboxPolicy policy)
      throws Exception {
    Path project = Files.createDirectories(tmp.resolve("ws/p"));
    List<String> problems = new ArrayList<>();
    DroneToolSynthesis synthesis = new DroneSkills(List.of(), drone, null, problems::add)
        .synthesis(tmp.resolve("ws"));
    List<Tool> tools = synthesis.forProject(project, CommandSandbox.of(policy), Set.of(), chat);
    assertThat(problems).isEmpty();
    return tools.stream().map(Tool::name).toList();
  }

  @Test
  void createToolIsOfferedOnlyWhereTheDroneAndTheChatAllowItAndNeverReadOnly()
      throws Exception {
    assertThat(offered(true, null, SandboxPolicy.WORKSPACE_WRITE))
        .containsExactly("create_tool", "save_pattern");
    assertThat(offered(true, true, SandboxPolicy.FULL_ACCESS))
        .containsExactly("create_tool", "save_pattern");
    assertThat(offered(false, true, SandboxPolicy.WORKSPACE_WRITE)).isEmpty(); // the drone's off
    assertThat(offered(true, false, SandboxPolicy.WORKSPACE_WRITE)).isEmpty(); // the chat says no
    assertThat(offered(true, true, SandboxPolicy.READ_ONLY)).isEmpty();
  }
}
