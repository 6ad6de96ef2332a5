package dev.gadget.core.drone.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.catalog.ModelToolExamples;
import dev.gadget.core.agent.catalog.ToolExamples;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ProviderConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drone's examples: written by each turn's own model, one source per provider and model,
 * kept in the drone's directory without the API key; none without a directory.
 */
class DroneToolExamplesTest {
  private static final String KEY = "sk-test-secret-0123456789";
  @TempDir Path dir;
  private final List<ProviderConfig> asked = new ArrayList<>();
  private final Function<ProviderConfig, LlmClient> clients = p -> {
    asked.add(p);
    return ScriptedLlmClient.builder().script(DroneToolExamplesTest::answer).build();
  };

  private static ScriptedLlmClient.Reply answer(LlmRequest request) {
    return ScriptedLlmClient.reply().text("{\"report\": [\"how did the " + request.model()
        + " build go\"]}").build();
  }

  private static ProviderConfig provider(String model, String key) {
    return new ProviderConfig("openai", "http://127.0.0.1:9/v1", key, model, null);
  }

  private static final ToolDefinition REPORT = new ToolDefinition("report",
      "Returns the build report", dev.gadget.core.GadgetJson.mapper().createObjectNode());

  @Test
  void withoutADirectoryThereAreNone() {
    try (DroneToolExamples examples = new DroneToolExamples(null, clients)) {
      assertThat(examples.forProvider(provider("m", KEY))).isSameAs(ToolExamples.NONE);
      assertThat(asked).isEmpty();
    }
  }

  @Test
  void eachModelWritesItsOwnKeptInAFileWithoutTheKey() throws Exception {
    try (DroneToolExamples examples = new DroneToolExamples(dir, clients)) {
      ToolExamples first = examples.forProvider(provider("qwen", KEY));
      assertThat(examples.forProvider(provider("qwen", KEY))).isSameAs(first);
      ToolExamples other = examples.forProvider(provider("llama", KEY));
      first.expect(List.of(REPORT));
      other.expect(List.of(REPORT));
      assertThat(((ModelToolExamples) first).awaitWritten(Duration.ofSeconds(20))).isTrue();
      assertThat(((ModelToolExamples) other).awaitWritten(Duration.ofSeconds(20))).isTrue();

      assertThat(first.of(REPORT)).containsExactly("how did the qwen build go");
      assertThat(other.of(REPORT)).containsExactly("how did the llama build go");
      List<Path> files;
      try (Stream<Path> list = Files.list(dir)) {
        files = list.toList();
      }
      assertThat(files).hasSize(2);
      for (Path f : files) {
        assertThat(f.getFileName().toString()).startsWith("tool-examples-").doesNotContain(KEY);
        assertThat(Files.readString(f)).contains("build go").doesNotContain(KEY);
      }
    }
  }

  @Test
  void aChangedKeyGetsAClientOfItsOwnAndTheModelsFile() {
    try (DroneToolExamples examples = new DroneToolExamples(dir, clients)) {
      ToolExamples before = examples.forProvider(provider("qwen", KEY));
      ToolExamples after = examples.forProvider(provider("qwen", KEY + "-rotated"));
      assertThat(after).isNotSameAs(before);
      assertThat(asked).extracting(ProviderConfig::apiKey)
          .containsExactly(KEY, KEY + "-rotated");
    }
  }
}
