package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.TestRepo;
import dev.gadget.core.llm.ScriptedLlmClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The agent's changes in headless Chromium: a turn's diff block, coloured and per file; Undo of
 * a later turn; Commit and Push of the chat's changes to the project's remote (the sample
 * project's own repository), all from the page, with the real drone and git.
 */
class BrowserChangesTest extends BrowserTestBase {
  private static String write(String path, String content) {
    return GadgetJson.mapper().createObjectNode().put("path", path).put("content", content)
        .toString();
  }

  @Test
  void showsTheDiffUndoesALaterTurnAndCommitsAndPushes() throws Exception {
    Path sample = tmp.resolve("greeter");
    // the sample project is made by the fixture: the script is written once it exists
    AtomicReference<ScriptedLlmClient> llm = new AtomicReference<>();
    fx = new PageFixture(tmp, (request, listener) -> llm.updateAndGet(l -> l != null ? l
        : script(sample)).stream(request, listener), true);

    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", "changes");
    c.put("prompt", "Greet in French and add a shouting greeter");
    c.put("prompt2", "Write a to-do file");
    c.put("message", "Greet in French, shout");
    c.put("timeoutMs", 30000);
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("first").asText()).isEqualTo("finished");
    JsonNode diff = r.get("diff");
    assertThat(diff.get("title").asText()).isEqualTo("Changed 2 files");
    assertThat(diff.get("files").toString())
        .isEqualTo("[\"modified README.md\",\"added src/Shout.java\"]");
    assertThat(diff.get("added").toString()).contains("+- Greet in French",
        "+class Shout {}");
    assertThat(diff.get("removed").toString()).contains("-- Greet in more languages");
    // the page's --ok and --bad (light theme), which keep 4.5:1 on the lines' backgrounds
    assertThat(diff.get("addColor").asText()).isEqualTo("rgb(43, 122, 59)");
    assertThat(diff.get("delColor").asText()).isEqualTo("rgb(201, 42, 42)");
    assertThat(diff.get("ctxColor").asText()).isNotIn(diff.get("addColor").asText(),
        diff.get("delColor").asText());
    assertThat(r.get("collapsed").asBoolean()).isTrue();
    assertThat(r.get("undone").asText()).contains("Undone", "TODO.md");
    assertThat(r.get("committed").asText()).startsWith("Committed ")
        .endsWith(" on gadget/" + fx.session.id() + ": Greet in French, shout");
    assertThat(r.get("pushed").asText())
        .isEqualTo("Pushed gadget/" + fx.session.id() + " to origin.");
    assertThat(r.get("afterReload").toString()).isEqualTo("[\"Changed 2 files\",\"Changed 1 "
        + "file\",\"Undone: this turn's changes were reverted\"]");

    Path work = tmp.resolve("workspace/greeter");
    assertThat(work.resolve("TODO.md")).doesNotExist();
    assertThat(work.resolve("src/Shout.java")).exists();
    String branch = "gadget/" + fx.session.id();
    assertThat(git(sample, "log", "-1", "--format=%an|%s", branch))
        .isEqualTo("tester|Greet in French, shout\n");
    assertThat(git(sample, "diff", "--name-status", "HEAD", branch))
        .isEqualTo("M\tREADME.md\nA\tsrc/Shout.java\n");
  }

  /** Turn 1 edits the README and adds a class; turn 2 adds a to-do file. */
  private static ScriptedLlmClient script(Path sample) {
    String readme;
    try {
      readme = Files.readString(sample.resolve("README.md"))
          .replace("- Greet in more languages", "- Greet in French");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("read_file", "{\"path\": \"README.md\"}")
            .toolCall("write_file", write("README.md", readme))
            .toolCall("write_file", write("src/Shout.java", "class Shout {}\n")).build(),
        ScriptedLlmClient.reply().text("Done.").build(),
        ScriptedLlmClient.reply().toolCall("write_file", write("TODO.md", "- more\n")).build(),
        ScriptedLlmClient.reply().text("Added.").build());
  }

  static String git(Path dir, String... args) throws Exception {
    return TestRepo.gitIn(dir, args);
  }
}
