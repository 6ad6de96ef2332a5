package dev.gadget.core.agent.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** update_plan: the whole list every time, checked, touching nothing. */
class PlanToolTest {
  @TempDir Path project;

  private ToolResult run(String json) throws Exception {
    return new PlanTool().execute(GadgetJson.mapper().readTree(json),
        new RunToolContext(new ProjectPaths(project)));
  }

  @Test
  void answersWithTheChecklist() throws Exception {
    ToolResult r = run("{\"plan\":[{\"step\":\"Read the code\",\"status\":\"completed\"},"
        + "{\"step\":\"Fix the bug\",\"status\":\"in_progress\"},"
        + "{\"step\":\"Run the tests\",\"status\":\"pending\"}]}");
    assertThat(r.error()).isFalse();
    assertThat(r.output()).isEqualTo("Plan updated:\n[x] Read the code\n[>] Fix the bug\n"
        + "[ ] Run the tests\n1 of 3 completed");
    try (var files = Files.list(project)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void refusesWhatIsNotAShortPlanInWordsTheModelCanActOn() {
    assertThatThrownBy(() -> run("{}")).isInstanceOf(ToolException.class)
        .hasMessageContaining("\"plan\" must be a list of 1 to 20 steps");
    assertThatThrownBy(() -> run("{\"plan\":[{\"step\":\"a\",\"status\":\"done\"}]}"))
        .hasMessage("step 1's \"status\" must be pending, in_progress or completed; got "
            + "\"done\"");
    assertThatThrownBy(() -> run("{\"plan\":[{\"step\":\"a\",\"status\":\"in_progress\"},"
        + "{\"step\":\"b\",\"status\":\"in_progress\"}]}"))
        .hasMessage("at most one step may be in_progress; got 2");
    assertThatThrownBy(() -> run("{\"plan\":[{\"status\":\"pending\"}]}"))
        .hasMessage("step 1 needs a \"step\": what to do");
    String many = "{\"plan\":[" + "{\"step\":\"s\",\"status\":\"pending\"},".repeat(21);
    assertThatThrownBy(() -> run(many.substring(0, many.length() - 1) + "]}"))
        .hasMessage("a plan has at most 20 steps; got 21");
    assertThatThrownBy(() -> run("{\"plan\":[{\"step\":\"" + "x".repeat(201)
        + "\",\"status\":\"pending\"}]}")).hasMessageContaining("longer than 200 characters");
  }
}
