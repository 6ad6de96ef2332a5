package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** A drone's commands in its sandbox: the work order and the rest of the workspace hidden. */
class DroneSandboxTest extends RuntimeTestBase {

  /** Runs one turn whose one command is {@code command}; what the model read as its result. */
  private String runCommand(String command,
      UnaryOperator<dev.gadget.core.drone.GadgetDrone.Builder> tweak) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("Looking.")
            .toolCall("run_command", dev.gadget.core.GadgetJson.mapper().createObjectNode()
                .put("command", command).toString()).build())
        .reply(ScriptedLlmClient.reply().text("Done.").build())
        .build();
    Path ws = tmp.resolve("ws");
    Files.createDirectories(ws.resolve("other"));
    Files.writeString(ws.resolve("other/notes.txt"), "another project's notes");
    fx.drone(ada, ws, llm, tweak);
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "look around"));
    String turn = reply.get("turnId").asText();
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    List<LlmMessage> second = llm.requests().get(1).messages();
    return second.get(second.size() - 1).content();
  }

  @Test
  void theWorkOrderAndOtherProjectsAreHiddenFromTheDronesCommands() throws Exception {
    String read = runCommand("cat ../.gadget/work-order.json; cat ../other/notes.txt; "
        + "echo made > made.txt; cat README.md", b -> b);
    assertThat(read).doesNotContain("processWorkOrder").doesNotContain("chatTurn")
        .doesNotContain("another project's notes")
        .contains("No such file or directory")
        .contains("hello from the sample project");
    assertThat(Files.readString(tmp.resolve("ws/sample/made.txt"))).isEqualTo("made\n");
  }

  @Test
  void underFullAccessTheSameCommandReadsThem() throws Exception {
    String read = runCommand("cat ../.gadget/work-order.json; cat ../other/notes.txt",
        b -> b.sandbox(CommandSandbox.none()));
    assertThat(read).contains("chatTurn").contains("another project's notes");
  }

  @Test
  void withoutBubblewrapTheDroneRefusesCommandsInsteadOfRunningThemUnconfined()
      throws Exception {
    String read = runCommand("echo ran > ran.txt", b -> b.sandbox(
        CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE).bwrap("/nonexistent/bwrap")
            .build()));
    assertThat(read).startsWith("Error: commands are refused: bubblewrap (/nonexistent/bwrap) "
        + "is not installed");
    assertThat(Files.exists(tmp.resolve("ws/sample/ran.txt"))).isFalse();
  }
}
