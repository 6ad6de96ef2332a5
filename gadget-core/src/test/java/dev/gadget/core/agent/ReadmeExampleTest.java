package dev.gadget.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.stream.BlockAggregator;
import dev.gadget.core.stream.StreamChunk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding example of README.md, compiled and run. The code between the README markers must
 * be the README's example, character for character: {@link #theReadmeShowsThisExample} checks it.
 */
class ReadmeExampleTest {
  @TempDir Path tmp;

  static AgentOutcome example(Path projectDir) throws Exception {
    // README-BEGIN
    LlmClient llm = ScriptedLlmClient.of(                    // or an Ollama / OpenAI client
        ScriptedLlmClient.reply()
            .toolCall("write_file", "{\"path\":\"hello.txt\",\"content\":\"Hello\\n\"}").build(),
        ScriptedLlmClient.reply().text("I wrote hello.txt.").build());
    BlockAggregator blocks = new BlockAggregator(block -> System.out.println(block));

    AgentLoop loop = AgentLoop.builder()
        .llmClient(llm)
        .tools(CodingTools.all())                            // confined to projectDir
        .limits(AgentLimits.DEFAULTS.withMaxRoundTrips(20))
        .build();
    AgentRequest request = AgentRequest.builder(projectDir, "qwen3", "Create hello.txt").build();
    AgentRun run = loop.start(request, new AgentListener() {
      @Override public void onChunk(StreamChunk chunk) { blocks.accept(chunk); }
      @Override public void onComplete(AgentOutcome outcome) { blocks.complete(); }
    });
    AgentOutcome outcome = run.outcome().get(5, TimeUnit.MINUTES);  // run.cancel() stops it
    System.out.println(outcome.status() + ": " + outcome.text() + " " + outcome.stats());
    // README-END
    return outcome;
  }

  @Test
  void theExampleRuns() throws Exception {
    TestRepo repo = TestRepo.create(tmp);
    AgentOutcome outcome = example(repo.dir());
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.text()).isEqualTo("I wrote hello.txt.");
    assertThat(repo.read("hello.txt")).isEqualTo("Hello\n");
  }

  @Test
  void theReadmeShowsThisExample() throws Exception {
    String source = Files.readString(
        Path.of("src/test/java/dev/gadget/core/agent/ReadmeExampleTest.java"));
    String body = source.substring(source.indexOf("// README-BEGIN\n") + 16,
        source.indexOf("    // README-END"));
    String example = body.lines().map(l -> l.startsWith("    ") ? l.substring(4) : l)
        .collect(Collectors.joining("\n", "", "\n"));
    String readme = Files.readString(Path.of("../README.md"));
    String marker = "<!-- The example below is ReadmeExampleTest's; keep them identical. -->\n"
        + "```java\n";
    assertThat(readme).contains(marker);
    int start = readme.indexOf(marker) + marker.length();
    String shown = readme.substring(start, readme.indexOf("```\n", start));
    assertThat(shown).isEqualTo(example);
    assertThat(example.lines().count()).isBetween(15L, 25L);
  }
}
