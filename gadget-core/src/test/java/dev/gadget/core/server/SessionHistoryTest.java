package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.OpenAiClient;
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
 * A session's next turn remembers what the agent did: the server, the drone and the real
 * {@link OpenAiClient} against a server replaying recorded-style SSE streams, whose requests are
 * recorded.
 */
class SessionHistoryTest {
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

  static String sse(String... deltas) {
    StringBuilder sb = new StringBuilder();
    for (String d : deltas) {
      sb.append("data: {\"choices\":[{\"index\":0,").append(d).append("}]}\n\n");
    }
    return sb.append("data: [DONE]\n\n").toString();
  }

  static String text(String field, String value) {
    return "\"delta\":{\"" + field + "\":\"" + value + "\"},\"finish_reason\":null";
  }

  static String finish(String reason) {
    return "\"delta\":{},\"finish_reason\":\"" + reason + "\"";
  }

  void enqueue(String body) {
    llm.enqueue(body).header("Content-Type", "text/event-stream");
  }

  @Test
  void turnTwoSendsTurnOnesToolCallsAndResultsPairedById() throws Exception {
    llm = LlmTestServer.start();
    enqueue(sse(text("reasoning_content", "Read it first."), text("content", "Let me look."),
        "\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_r1\",\"type\":\"function\","
            + "\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":"
            + "\\\"README.md\\\"}\"}}]},\"finish_reason\":null",
        finish("tool_calls")));
    enqueue(sse(text("reasoning_content", "Now I know."), text("content", "It says hello."),
        finish("stop")));
    enqueue(sse(text("content", "Still hello."), finish("stop")));

    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    fx.drone(ada, tmp.resolve("ws"),
        OpenAiClient.builder().baseUrl(llm.v1().toString()).apiKey("sk-test").build());
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    RuntimeFixture.await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());

    String t1 = submit(page, session, "What does the README say?");
    assertThat(page.completion(t1).get("status").asText()).isEqualTo("finished");
    String t2 = submit(page, session, "And now?");
    assertThat(page.completion(t2).get("status").asText()).isEqualTo("finished");

    llm.takeRequest();
    llm.takeRequest();
    JsonNode messages = llm.takeRequest().json().get("messages");
    List<String> roles = new ArrayList<>();
    messages.forEach(m -> roles.add(m.get("role").asText()));
    assertThat(roles).containsExactly("system", "user", "assistant", "tool", "assistant", "user");
    assertThat(messages.get(1).get("content").asText()).isEqualTo("What does the README say?");
    JsonNode call = messages.get(2);
    assertThat(call.get("content").asText()).isEqualTo("Let me look.");
    assertThat(call.get("reasoning_content").asText()).isEqualTo("Read it first.");
    assertThat(call.at("/tool_calls/0/id").asText()).isEqualTo("call_r1");
    assertThat(call.at("/tool_calls/0/function/name").asText()).isEqualTo("read_file");
    assertThat(call.at("/tool_calls/0/function/arguments").asText())
        .isEqualTo("{\"path\":\"README.md\"}");
    JsonNode result = messages.get(3);
    assertThat(result.get("tool_call_id").asText()).isEqualTo("call_r1");
    assertThat(result.get("content").asText()).contains("hello from the sample project");
    // no reasoning field on a reply without tool calls: seed 002's merge, with a separator
    assertThat(messages.get(4).get("content").asText())
        .isEqualTo("<thinking>Now I know.</thinking>\nIt says hello.");
    assertThat(messages.get(5).get("content").asText()).isEqualTo("And now?");
  }

  private static String submit(Page page, String sessionId, String prompt) throws Exception {
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", sessionId, "prompt", prompt));
    assertThat(reply.has("error")).as("submit error: %s", reply).isFalse();
    return reply.get("turnId").asText();
  }
}
