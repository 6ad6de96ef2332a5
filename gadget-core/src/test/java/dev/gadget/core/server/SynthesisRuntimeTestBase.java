package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A server and a drone that may write itself tools ({@code createTools}), with ada's page
 * watching a chat: what the synthesized-tool runtime tests share.
 */
abstract class SynthesisRuntimeTestBase extends RuntimeTestBase {
  Page page;
  String session;

  /** Starts them with {@code llm}; {@code userTools} the user's library, or null for none. */
  GadgetDrone start(ScriptedLlmClient llm, Path userTools) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    GadgetDrone.Builder b = GadgetDrone.builder().transport(fx.transport.client())
        .token(ada.droneToken()).workspaceDir(tmp.resolve("ws"))
        .llmClients(p -> llm).tools(CodingTools.all()).createTools(true)
        .heartbeatInterval(Duration.ofMillis(100));
    if (userTools != null) {
      b.userTools(userTools);
    }
    GadgetDrone drone = b.build();
    drone.start();
    fx.closeables.add(drone);
    page = fx.page(ada.pageToken()).connected();
    session = fx.watchedSession(page);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    return drone;
  }

  /** A prompt's turn, finished, with the drone free again; its id. */
  String turn(GadgetDrone drone, String prompt) throws Exception {
    String t = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session, "prompt",
        prompt)).get("turnId").asText();
    assertThat(page.completion(t).get("status").asText()).isEqualTo("finished");
    await("drone free", () -> drone.activeTurnId().isEmpty());
    return t;
  }

  /** A create_tool call's arguments for a tool 'shout' with one passing test. */
  static String shoutTool() {
    ObjectNode a = GadgetJson.mapper().createObjectNode().put("name", "shout")
        .put("description", "Say a word loudly.").put("language", "sh")
        .put("code", "tr a-z A-Z");
    a.putObject("parameters").put("type", "object");
    a.withArray("tests").addObject().put("expect", "HI").putObject("arguments")
        .put("word", "hi");
    return a.toString();
  }
}
