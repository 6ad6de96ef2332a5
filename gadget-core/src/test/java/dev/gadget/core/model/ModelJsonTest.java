package dev.gadget.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.stream.StreamChunk;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelJsonTest {
  private static final ObjectMapper JSON = GadgetJson.mapper();
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00Z");

  private static <T> T roundTrip(T value, Class<T> type) throws Exception {
    String json = JSON.writeValueAsString(value);
    T back = JSON.readValue(json, type);
    assertThat(back).isEqualTo(value);
    return back;
  }

  private static ChatTurn sampleTurn() {
    ToolCall call = new ToolCall("c1", "read_file", "{\"path\":\"a.txt\"}", "hello");
    return new ChatTurn("t1", "s1", "u1", 3, TurnStatus.FINISHED, "fix it", "build",
        List.of(new TurnBlock.Thinking(0, T0, "hmm"), new TurnBlock.Responding(1, T0, "Sure"),
            new TurnBlock.Tool(2, T0, call)),
        List.of(call), new TurnStats(10, 20, 5, 1, 2, 1500), T0, T0.plusSeconds(2), null, "d1");
  }

  @Test
  void aToolCallsStepsAreWrittenOnlyWhenThereAreSomeAndAreBounded() throws Exception {
    ToolCall plain = new ToolCall("c1", "read_file", "{}", "hello");
    assertThat(JSON.writeValueAsString(plain)).doesNotContain("steps");
    ToolCall composite = plain.withSteps(List.of(new ToolStep("upper", 0, 4L),
        new ToolStep("count", null, null)));
    assertThat(JSON.writeValueAsString(composite)).contains("\"steps\":[{\"name\":\"upper\","
        + "\"exitCode\":0,\"durationMs\":4},{\"name\":\"count\"}]");
    roundTrip(composite, ToolCall.class);
    assertThat(composite.withResponse("x").withApproval(null).steps()).isEqualTo(composite.steps());
    List<ToolStep> many = java.util.Collections.nCopies(ToolStep.MAX_STEPS + 1,
        new ToolStep("upper", 0, 1L));
    assertThatThrownBy(() -> plain.withSteps(many)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a tool call holds at most 100 steps; got 101");
    assertThatThrownBy(() -> new ToolStep("x".repeat(65), 0, 1L))
        .hasMessage("a tool step's name must be 1 to 64 characters; got 65");
  }

  @Test
  void everyTypeRoundTrips() throws Exception {
    roundTrip(new User("u1", "ada", "Ada", T0), User.class);
    roundTrip(new Project("p1", "u1", "Demo", "demo", "/tmp/demo.git", T0), Project.class);
    roundTrip(new ChatSession("s1", "u1", "p1", "Fix bug", "ws1", T0), ChatSession.class);
    roundTrip(sampleTurn(), ChatTurn.class);
    roundTrip(new DroneRegistration("d1", "u1", "ws1", "host", "/w", DroneStatus.BUSY, T0, T0),
        DroneRegistration.class);
    roundTrip(new StoredToken("k1", "u1", TokenKind.DRONE, "laptop", "a".repeat(64), T0),
        StoredToken.class);
    roundTrip(new ChatMessage(T0, Role.TOOL, "out"), ChatMessage.class);
    roundTrip(workOrder(), WorkOrder.class);
    roundTrip(new StreamChunk.Thinking("a"), StreamChunk.class);
    roundTrip(new StreamChunk.ToolCallChunk(new ToolCall("c", "n", "{}", null)), StreamChunk.class);
  }

  private static WorkOrder workOrder() {
    return new WorkOrder("w1",
        new WorkOrder.ProjectRef("p1", "Demo", "demo", "/tmp/demo.git"),
        new ProviderConfig("ollama", "http://127.0.0.1:11434", "sk-secret", "qwen3",
            new ModelParams(0.2, 0.9, 40)),
        new WorkOrder.SessionRef("s1", "Fix bug",
            List.of(new ChatMessage(T0, Role.USER, "hi"),
                ChatMessage.assistant(T0, "think", "hello"))),
        new WorkOrder.TurnRef("t1", "build", "fix it"));
  }

  @Test
  void fieldNamesAreTheDocumentedOnes() throws Exception {
    JsonNode turn = JSON.valueToTree(sampleTurn());
    assertThat(turn.fieldNames()).toIterable().containsExactlyInAnyOrder("_id", "sessionId",
        "userId", "seq", "status", "prompt", "mode", "blocks", "toolCalls", "stats", "createdAt",
        "finishedAt", "droneId");
    assertThat(turn.get("status").asText()).isEqualTo("finished");
    assertThat(turn.get("createdAt").asText()).isEqualTo("2026-04-29T19:30:00Z");
    assertThat(turn.at("/blocks/0/mode").asText()).isEqualTo("thinking");
    assertThat(turn.at("/blocks/2/mode").asText()).isEqualTo("tool");
    assertThat(turn.at("/blocks/2/content/callId").asText()).isEqualTo("c1");
    assertThat(turn.at("/stats/thinkingTokenCount").asLong()).isEqualTo(5);

    JsonNode order = JSON.valueToTree(workOrder());
    assertThat(order.at("/provider/sdk").asText()).isEqualTo("ollama");
    assertThat(order.at("/provider/params/topK").asInt()).isEqualTo(40);
    assertThat(order.at("/chatSession/context/1/role").asText()).isEqualTo("assistant");
    assertThat(order.at("/chatSession/context/1/content").asText())
        .isEqualTo("<thinking>think</thinking>\nhello");
    assertThat(order.at("/chatTurn/prompt").asText()).isEqualTo("fix it");

    JsonNode chunk = JSON.valueToTree(new StreamChunk.Response("x"));
    assertThat(chunk.toString()).isEqualTo("{\"type\":\"response\",\"data\":\"x\"}");
  }

  @Test
  void secretsAreRedactedInToStringAndDroppedForDisk() throws Exception {
    WorkOrder order = workOrder();
    assertThat(order.toString()).doesNotContain("sk-secret").contains("<redacted>");
    assertThat(order.provider().toString()).doesNotContain("sk-secret");
    assertThat(JSON.writeValueAsString(order.withoutSecrets())).doesNotContain("sk-secret");
    assertThat(JSON.writeValueAsString(order)).contains("sk-secret");
  }

  @Test
  void invalidValuesAreRefusedWithTheFieldName() {
    assertThatThrownBy(() -> new Project("p", "u", "n", "../etc", "g", T0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slug");
    assertThatThrownBy(() -> new ToolCall(null, "n", "{}", null))
        .isInstanceOf(NullPointerException.class).hasMessage("callId");
    assertThatThrownBy(() -> new TurnBlock.Responding(-1, T0, "x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JSON.readValue("{\"mode\":\"bogus\",\"seq\":0}", TurnBlock.class))
        .hasMessageContaining("bogus");
  }
}
