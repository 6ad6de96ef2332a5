package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.drone.TurnTools;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.Role;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** GadgetDrone.Builder#turnTools: tools made for each turn's project, closed with the turn. */
class DroneTurnToolsTest extends RuntimeTestBase {

  /** A tool that tells the model how long the project's README is. */
  static Tool readmeSize(Path projectDir) {
    return new Tool() {
      @Override public String name() { return "readme_size"; }
      @Override public String description() { return "The README's size"; }
      @Override public JsonNode parameters() {
        return new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode()
            .put("type", "object");
      }
      @Override public ToolResult execute(JsonNode arguments, ToolContext context)
          throws Exception {
        return ToolResult.ok("README.md has " + Files.size(projectDir.resolve("README.md"))
            + " bytes");
      }
    };
  }

  private String turn(Function<Path, TurnTools> turnTools, ScriptedLlmClient llm)
      throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    GadgetDrone drone = GadgetDrone.builder().transport(fx.transport.client())
        .token(ada.droneToken()).workspaceDir(tmp.resolve("ws"))
        .llmClients(p -> llm).tools(CodingTools.all()).turnTools(turnTools)
        .heartbeatInterval(Duration.ofMillis(100)).build();
    drone.start();
    fx.closeables.add(drone);
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "How long is the README?"));
    JsonNode done = page.completion(reply.get("turnId").asText());
    await("drone free", () -> drone.activeTurnId().isEmpty());
    return done.get("status").asText() + (done.hasNonNull("error")
        ? ": " + done.get("error").asText() : "");
  }

  @Test
  void aTurnGetsToolsMadeForItsProjectAndTheyAreClosedWhenItEnds() throws Exception {
    List<Path> opened = new CopyOnWriteArrayList<>();
    AtomicInteger closed = new AtomicInteger();
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("readme_size", "{}").build(),
        ScriptedLlmClient.reply().text("It is short.").build());

    String status = turn(dir -> {
      opened.add(dir);
      return new TurnTools() {
        @Override public List<Tool> tools() { return List.of(readmeSize(dir)); }
        @Override public void close() { closed.incrementAndGet(); }
      };
    }, llm);

    assertThat(status).isEqualTo("finished");
    assertThat(opened).containsExactly(tmp.resolve("ws/sample").toRealPath());
    LlmMessage result = llm.requests().get(1).messages().stream()
        .filter(m -> m.role() == Role.TOOL).findFirst().orElseThrow();
    assertThat(result.content()).contains("README.md has 30 bytes");
    assertThat(llm.requests().get(0).tools()).extracting(t -> t.name())
        .contains("read_file", "readme_size");
    await("the turn's tools closed", () -> closed.get() == 1);
  }

  @Test
  void toolsThatCannotBeMadeEndTheTurnWithTheirReason() throws Exception {
    String status = turn(dir -> {
      throw new IllegalStateException("could not start the MCP server \"fs\": it exited");
    }, ScriptedLlmClient.of());

    assertThat(status).isEqualTo("error: could not start the MCP server \"fs\": it exited");
  }
}
