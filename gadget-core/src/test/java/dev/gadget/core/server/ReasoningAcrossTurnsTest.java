package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.AnthropicClient;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.OpenAiResponsesClient;
import dev.gadget.core.llm.Recordings;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OpenAI's encrypted reasoning crosses turns: the server, the drone and the real
 * {@link OpenAiResponsesClient} against a local server replaying authored Responses streams. The
 * reasoning item of turn one travels from the drone with its thinking block, is stored with it,
 * goes back in turn two's work order, and the model gets it unchanged; pages never see it. The
 * same for Anthropic's signed thinking through {@link AnthropicClient}.
 */
class ReasoningAcrossTurnsTest {
  static final String ITEM = "{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\","
      + "\"text\":\"**Reading the file**\\n\\nI need to see Greeting.java first.\"},{\"type\":"
      + "\"summary_text\",\"text\":\"Then list the sources.\"}],\"encrypted_content\":"
      + "\"gAAAAABor_wMkZ3vQ0x1c2VkLXJlYXNvbmluZy1ibG9iLWZvci10ZXN0cw==\"}";

  static final String SIGNATURE = "ErUBCkYIBBgCIkD0c0ll1sNPmAHFxIVz/TdQ1g==";

  @TempDir Path tmp;
  RuntimeFixture fx;
  LlmTestServer llm;
  Page page;
  String session;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
    if (llm != null) {
      llm.close();
    }
  }

  /**
   * Runs two turns ("Fix the greeting", then "And now?") through a server and a drone using
   * {@code client}, the local server replaying {@code recordings} in order; turn one's stored
   * signed reasoning.
   */
  private List<SignedReasoning> twoTurns(LlmClient client, String... recordings)
      throws Exception {
    for (String r : recordings) {
      llm.enqueue(Recordings.load(r)).header("Content-Type", "text/event-stream");
    }
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    fx.drone(ada, tmp.resolve("ws"), client);
    page = fx.page(ada.pageToken()).connected();
    session = fx.watchedSession(page);
    RuntimeFixture.await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());

    String t1 = page.submit(session, "Fix the greeting");
    assertThat(page.completion(t1).get("status").asText()).isEqualTo("finished");
    ChatTurn stored = fx.store.findTurn(t1).orElseThrow();
    String t2 = page.submit(session, "And now?");
    assertThat(page.completion(t2).get("status").asText()).isEqualTo("finished");
    return stored.blocks().stream()
        .filter(b -> b instanceof TurnBlock.Thinking).map(b -> (TurnBlock.Thinking) b)
        .flatMap(b -> b.reasoning().stream()).toList();
  }

  /** What pages got, live and in a snapshot, holds none of {@code secrets}. */
  private void pagesNeverSaw(String... secrets) throws Exception {
    JsonNode snapshot = page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    for (String secret : secrets) {
      assertThat(page.events.toString()).doesNotContain(secret);
      assertThat(snapshot.toString()).doesNotContain(secret);
    }
  }

  @Test
  void turnTwoSendsTurnOnesEncryptedReasoningUnchangedAndPagesNeverSeeIt() throws Exception {
    llm = LlmTestServer.start();
    List<SignedReasoning> kept = twoTurns(OpenAiResponsesClient.builder().baseUrl(llm.v1())
        .apiKey("sk-test-resp-123").build(),
        "openai-responses/reasoning-tool-calls.sse", // turn 1: reasoning, two tool calls
        "openai-responses/text.sse", // turn 1: the answer
        "openai-responses/text.sse"); // turn 2
    assertThat(kept).hasSize(1);
    assertThat(kept.get(0).provider()).isEqualTo("openai-responses");
    assertThat(kept.get(0).data()).isEqualTo(ITEM);
    assertThat(kept.get(0).toString()).doesNotContain("gAAAA");

    llm.takeRequest();
    llm.takeRequest();
    JsonNode input = llm.takeRequest().json().get("input");
    List<String> types = new ArrayList<>();
    input.forEach(i -> types.add(i.path("type").asText(i.path("role").asText())));
    int reasoning = types.indexOf("reasoning");
    assertThat(reasoning).as("turn two's input: %s", types).isGreaterThan(0);
    assertThat(input.get(reasoning).toString()).isEqualTo(ITEM);
    assertThat(input.get(reasoning + 1).get("call_id").asText()).isEqualTo("call_Xq3mB2kLr8");
    assertThat(types.stream().filter("reasoning"::equals).count()).isEqualTo(1);

    pagesNeverSaw("encrypted_content", "gAAAA");
  }

  @Test
  void turnTwoSendsTurnOnesSignedAnthropicThinkingUnchanged() throws Exception {
    llm = LlmTestServer.start();
    List<SignedReasoning> kept = twoTurns(AnthropicClient.builder().baseUrl(llm.url())
        .apiKey("sk-ant-test").thinkingBudget(2048).build(),
        "anthropic/tool-use.sse", // turn 1: signed thinking, a tool call
        "anthropic/text.sse", // turn 1: the answer
        "anthropic/text.sse"); // turn 2
    assertThat(kept).containsExactly(new SignedReasoning("anthropic",
        "I should read the file first.", SIGNATURE, null));

    llm.takeRequest();
    llm.takeRequest();
    JsonNode messages = llm.takeRequest().json().get("messages");
    assertThat(messages).hasSize(5); // prompt, tool turn, result, answer, prompt
    assertThat(messages.get(1).get("content").get(0)).isEqualTo(GadgetJson.mapper()
        .createObjectNode().put("type", "thinking")
        .put("thinking", "I should read the file first.").put("signature", SIGNATURE));
    assertThat(messages.get(1).get("content").get(2).get("type").asText()).isEqualTo("tool_use");
    pagesNeverSaw(SIGNATURE);
  }
}
