package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
 * goes back in turn two's work order, and the model gets it unchanged; pages never see it.
 */
class ReasoningAcrossTurnsTest {
  static final String ITEM = "{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\","
      + "\"text\":\"**Reading the file**\\n\\nI need to see Greeting.java first.\"},{\"type\":"
      + "\"summary_text\",\"text\":\"Then list the sources.\"}],\"encrypted_content\":"
      + "\"gAAAAABor_wMkZ3vQ0x1c2VkLXJlYXNvbmluZy1ibG9iLWZvci10ZXN0cw==\"}";

  @TempDir Path tmp;
  RuntimeFixture fx;
  LlmTestServer llm;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
    if (llm != null) {
      llm.close();
    }
  }

  private void enqueue(String recording) {
    llm.enqueue(Recordings.load("openai-responses/" + recording))
        .header("Content-Type", "text/event-stream");
  }

  @Test
  void turnTwoSendsTurnOnesEncryptedReasoningUnchangedAndPagesNeverSeeIt() throws Exception {
    llm = LlmTestServer.start();
    enqueue("reasoning-tool-calls.sse"); // turn 1: reasoning, then two tool calls
    enqueue("text.sse"); // turn 1: the answer
    enqueue("text.sse"); // turn 2

    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    fx.drone(ada, tmp.resolve("ws"), OpenAiResponsesClient.builder().baseUrl(llm.v1())
        .apiKey("sk-test-resp-123").build());
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    RuntimeFixture.await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());

    String t1 = page.submit(session, "Fix the greeting");
    assertThat(page.completion(t1).get("status").asText()).isEqualTo("finished");
    ChatTurn stored = fx.store.findTurn(t1).orElseThrow();
    List<SignedReasoning> kept = stored.blocks().stream()
        .filter(b -> b instanceof TurnBlock.Thinking).map(b -> (TurnBlock.Thinking) b)
        .flatMap(b -> b.reasoning().stream()).toList();
    assertThat(kept).hasSize(1);
    assertThat(kept.get(0).provider()).isEqualTo("openai-responses");
    assertThat(kept.get(0).data()).isEqualTo(ITEM);
    assertThat(kept.get(0).toString()).doesNotContain("gAAAA");

    String t2 = page.submit(session, "And now?");
    assertThat(page.completion(t2).get("status").asText()).isEqualTo("finished");

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

    // what pages get: the live events, and a snapshot of the stored turns
    assertThat(page.events.toString()).doesNotContain("encrypted_content")
        .doesNotContain("gAAAA");
    JsonNode snapshot = page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    assertThat(snapshot.toString()).contains("Then list the sources.")
        .doesNotContain("encrypted_content").doesNotContain("gAAAA");
  }
}
