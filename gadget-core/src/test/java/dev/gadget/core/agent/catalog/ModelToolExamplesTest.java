package dev.gadget.core.agent.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Examples written by a model (a scripted one, answering for the tools each request names):
 * once per definition, in batches, kept in a file for the next start, and a model that fails
 * or answers otherwise asked once.
 */
class ModelToolExamplesTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @TempDir Path dir;

  /** Ten tools: {@code tool0} to {@code tool9}, each described as a report of its number. */
  private static List<ToolDefinition> tools() {
    List<ToolDefinition> out = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      out.add(ToolCatalogTest.tool("tool" + i, "Returns report number " + i,
          "{\"type\":\"object\"}"));
    }
    return out;
  }

  /** Answers each request with examples of the tools it names: "zebra{n} please" for tool n. */
  private static ScriptedLlmClient model() {
    return ScriptedLlmClient.builder().script(ModelToolExamplesTest::answer).build();
  }

  private static ScriptedLlmClient.Reply answer(LlmRequest request) {
    String prompt = request.messages().get(1).content();
    ObjectNode json = GadgetJson.mapper().createObjectNode();
    for (int i = 0; i < 10; i++) {
      if (prompt.contains("- tool" + i + ":")) {
        ArrayNode list = json.putArray("tool" + i);
        list.add("zebra" + i + " please").add("  show me\n the zebra" + i + " thing ").add(7);
      }
    }
    return ScriptedLlmClient.reply().text("Here you are:\n" + json + "\n").build();
  }

  @Test
  void aDefinitionIsWrittenForOnceInBatchesAndFoundByItsExamplesWords() throws Exception {
    ScriptedLlmClient llm = model();
    try (ModelToolExamples examples = new ModelToolExamples(llm, "m", null)) {
      ToolCatalog.of(tools(), null, examples); // queues its ten tools together
      assertThat(examples.awaitWritten(WAIT)).isTrue();

      assertThat(llm.requests()).hasSize(2); // 8 tools, then 2
      assertThat(llm.requests().get(0).messages().get(1).content())
          .contains("- tool0: tool0: Returns report number 0");
      assertThat(examples.of(tools().get(7)))
          .containsExactly("zebra7 please", "show me the zebra7 thing");
      assertThat(ToolCatalog.of(tools(), null, examples).search("zebra7", 1))
          .extracting(ToolMatch::name).containsExactly("tool7");
      assertThat(examples.awaitWritten(WAIT)).isTrue();
      assertThat(llm.requests()).as("asked once per definition").hasSize(2);
    }
  }

  @Test
  void whatWasWrittenIsReadBackFromItsFileWithoutAskingTheModel() throws Exception {
    Path file = dir.resolve("tool-examples.jsonl");
    try (ModelToolExamples first = new ModelToolExamples(model(), "m", file)) {
      tools().forEach(first::of);
      assertThat(first.awaitWritten(WAIT)).isTrue();
    }
    Files.writeString(file, "not json\n", java.nio.file.StandardOpenOption.APPEND);
    ScriptedLlmClient none = ScriptedLlmClient.builder().build(); // fails if asked
    try (ModelToolExamples again = new ModelToolExamples(none, "m", file)) {
      assertThat(again.size()).isEqualTo(10);
      assertThat(again.of(tools().get(3))).contains("zebra3 please");
      assertThat(none.requests()).isEmpty();
    }
    try (ModelToolExamples otherModel = new ModelToolExamples(none, "other", file)) {
      assertThat(otherModel.of(tools().get(3))).as("another model's are not its").isEmpty();
    }
  }

  @Test
  void aModelThatAnswersOtherwiseOrFailsIsAskedOnce() throws Exception {
    for (ScriptedLlmClient.Reply reply : List.of(
        ScriptedLlmClient.reply().text("Sorry, I cannot help with that.").build(),
        ScriptedLlmClient.reply().fail("connection refused").build())) {
      ScriptedLlmClient llm = ScriptedLlmClient.of(reply);
      try (ModelToolExamples examples = new ModelToolExamples(llm, "m", null)) {
        examples.of(tools().get(0));
        assertThat(examples.awaitWritten(WAIT)).isTrue();
        assertThat(examples.of(tools().get(0))).isEmpty();
        assertThat(examples.awaitWritten(WAIT)).isTrue();
        assertThat(examples.size()).isZero();
        assertThat(llm.requests()).hasSize(1);
      }
    }
  }
}
