package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.stream.StreamChunk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's scripted replies through the real agent loop and tools, on the sample project. */
class DemoScriptTest {
  @TempDir Path tmp;

  @Test
  void looksAroundWithRealToolsThenAnswersInMarkdownSayingItIsScripted() throws Exception {
    Path project = SampleProject.create(tmp.resolve("greeter"));
    ScriptedLlmClient llm = DemoScript.client(Duration.ZERO);
    List<StreamChunk> chunks = new CopyOnWriteArrayList<>();
    AgentLoop loop = AgentLoop.builder().llmClient(llm).tools(CodingTools.all()).build();
    AgentOutcome outcome = loop.start(
        AgentRequest.builder(project, "gadget-demo-script", "What is this project about?")
            .build(),
        new AgentListener() {
          @Override
          public void onChunk(StreamChunk chunk) {
            chunks.add(chunk);
          }
        }).outcome().get(30, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    List<ToolCall> calls = chunks.stream().filter(c -> c instanceof StreamChunk.ToolCallChunk)
        .map(c -> ((StreamChunk.ToolCallChunk) c).call()).toList();
    assertThat(calls).extracting(ToolCall::name).containsExactly("list_dir", "read_file");
    assertThat(calls.get(0).response()).contains("README.md", "src/", "NOTES.md");
    assertThat(calls.get(1).parameters()).contains("README.md");
    assertThat(calls.get(1).response()).contains("# Greeter");
    assertThat(outcome.text())
        .contains("**Scripted reply.**", "What is this project about?")
        .contains("| `README.md` | file |", "| `src/` | directory |")
        .contains("> # Greeter", "A tiny sample project")
        .doesNotContain(".git/");
    assertThat(chunks).anyMatch(c -> c instanceof StreamChunk.Thinking);
    assertThat(chunks.stream().filter(c -> c instanceof StreamChunk.Response).count())
        .as("streamed word by word").isGreaterThan(50);
  }

  @Test
  void listingsAreParsedIntoEntries() {
    assertThat(DemoScript.entries(".git/\nREADME.md\nsrc/\n[… 3 more entries]\n"))
        .containsExactly("README.md", "src/");
    assertThat(DemoScript.entries("(. is empty)")).isEmpty();
  }
}
