package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.server.GadgetServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 6's last item: a real {@link GadgetServer} over a {@link WebSocketTransportServer} and a
 * real {@link GadgetDrone} over a {@link WebSocketTransportClient} (the runtime's server and drone,
 * unchanged), a real git repository and a scripted model, with the stock npm socket.io-client
 * 4.8.1 ({@code transports: ['websocket']}, {@code src/test/node/page.js}) acting as the page of
 * docs/PROTOCOL.md.
 */
class StockPageRoundTripTest extends StockPageFixture {

  @Test
  void theStockClientAsThePageFollowsAWholeTurn() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().thinking("I should look at the README first.")
            .text("Let me read it.").toolCall("read_file", "{\"path\":\"README.md\"}").build(),
        ScriptedLlmClient.reply().thinking("Now I know.")
            .text("The README says hello from the sample project.").build());
    Path ws = startDrone(llm);

    List<JsonNode> lines;
    try (NodeProcess node = page("roundTrip", Map.of("token", pageToken, "gitUrl", gitUrl,
        "prompt", "What does the README say?"))) {
      lines = readUntil(node, new ArrayList<>(), line -> is(line, "done"));
    }

    JsonNode project = ack(lines, "createProject", 0).get("project");
    assertThat(project.get("gitUrl").asText()).isEqualTo(gitUrl);
    assertThat(project.get("userId").asText()).isEqualTo(ada.id());
    JsonNode session = ack(lines, "createSession", 0).get("session");
    assertThat(session.get("projectId").asText()).isEqualTo(project.get("_id").asText());
    JsonNode watched = ack(lines, "watchSession", 0);
    assertThat(watched.get("sessionId").asText()).isEqualTo(session.get("_id").asText());
    assertThat(watched.get("turns")).isEmpty();
    assertThat(watched.get("live")).isEmpty();
    String turnId = ack(lines, "submitPrompt", 0).get("turnId").asText();

    // The page got the whole turn: turnStarted, then every stream event once, seq 0, 1, 2, ...,
    // each with exactly one JSON object argument.
    List<JsonNode> events = streamEvents(lines, 1);
    assertThat(events).allSatisfy(e -> assertThat(e.get("argc").asInt()).isEqualTo(1));
    assertThat(events.get(0).get("event").asText()).isEqualTo("turnStarted");
    JsonNode started = events.get(0).get("payload").get("turn");
    assertThat(started.get("_id").asText()).isEqualTo(turnId);
    assertThat(started.get("status").asText()).isEqualTo("processing");
    assertThat(started.get("prompt").asText()).isEqualTo("What does the README say?");
    List<JsonNode> stream = events.subList(1, events.size());
    assertThat(stream).allSatisfy(e ->
        assertThat(e.get("payload").get("turnId").asText()).isEqualTo(turnId));
    assertThat(seqs(stream)).isEqualTo(range(0, stream.size()));
    JsonNode done = stream.get(stream.size() - 1);
    assertThat(done.get("event").asText()).isEqualTo("workOrderComplete");
    assertThat(done.get("payload").get("status").asText()).isEqualTo("finished");
    assertThat(stream.subList(0, stream.size() - 1)).noneMatch(e -> is(e, "workOrderComplete"));

    // The assembled text is the model's text, token for token.
    assertThat(text(stream, "thinking")).isEqualTo("I should look at the README first.Now I know.");
    assertThat(text(stream, "response"))
        .isEqualTo("Let me read it.The README says hello from the sample project.");
    List<JsonNode> toolCalls = stream.stream().filter(e -> is(e, "toolCall")).toList();
    assertThat(toolCalls).hasSize(1);
    JsonNode call = toolCalls.get(0).get("payload").get("call");
    assertThat(call.get("name").asText()).isEqualTo("read_file");
    // parameters are the arguments as a JSON text (docs/MODEL.md)
    assertThat(JSON.readTree(call.get("parameters").asText()))
        .isEqualTo(JSON.readTree("{\"path\":\"README.md\"}"));
    assertThat(call.get("callId").asText()).isNotBlank();
    assertThat(call.get("response").toString()).contains("hello from the sample project");
    List<String> assembled = assemble(null, turnId, stream);
    assertThat(assembled).containsExactly(
        "thinking:I should look at the README first.",
        "responding:Let me read it.",
        "tool:read_file",
        "thinking:Now I know.",
        "responding:The README says hello from the sample project.");

    // The store holds the same blocks, and a page watching afterwards gets exactly them.
    ChatTurn stored = store.findTurn(turnId).orElseThrow();
    assertThat(stored.status()).isEqualTo(TurnStatus.FINISHED);
    JsonNode storedBlocks = blocks(stored);
    assertThat(describe(storedBlocks)).isEqualTo(assembled);
    assertThat(storedBlocks.get(2).get("content")).isEqualTo(call);
    JsonNode after = ack(lines, "watchSession", 1);
    assertThat(after.get("live")).isEmpty();
    assertThat(after.get("turns")).hasSize(1);
    JsonNode turn = after.get("turns").get(0);
    assertThat(turn.get("_id").asText()).isEqualTo(turnId);
    assertThat(turn.get("status").asText()).isEqualTo("finished");
    assertThat(turn.get("blocks")).isEqualTo(storedBlocks);

    // The drone did the work: cloned over git, read the file, kept no key on disk.
    assertThat(ws.resolve("sample/README.md")).exists();
    assertThat(llm.remaining()).isZero();
    assertThat(Files.readString(ws.resolve(".gadget/workspace.json"))).doesNotContain(API_KEY);
    assertThat(lines.toString()).doesNotContain(API_KEY);
  }

  @Test
  void theStockClientIsRefusedWithTheServersMessageAndTheServerGoesOn() throws Exception {
    ArrayNode attempts = JSON.createArrayNode();
    attempts.add(attempt("/", JSON.createObjectNode().put("token", "gdt_nope")));
    attempts.add(attempt("/", JSON.createObjectNode().put("token", droneToken)));
    attempts.add(attempt("/", JSON.createObjectNode()));
    attempts.add(attempt("/", null));
    attempts.add(attempt("/drone", JSON.createObjectNode().put("token", pageToken)
        .put("workspaceId", "w")));
    attempts.add(attempt("/admin", JSON.createObjectNode().put("token", pageToken)));

    List<JsonNode> lines;
    try (NodeProcess node = page("refusals", Map.of("attempts", attempts, "token", pageToken))) {
      lines = readUntil(node, new ArrayList<>(), line -> is(line, "done"));
    }
    List<JsonNode> refusals = lines.stream().filter(l -> !is(l, "ack") && !is(l, "done")).toList();
    assertThat(refusals).extracting(l -> l.get("event").asText())
        .containsOnly("connect_error").hasSize(attempts.size());
    assertThat(refusals).extracting(l -> l.get("message").asText()).containsExactly(
        "invalid token",
        "this is a drone token; it cannot connect here",
        "missing token",
        "missing token",
        "this is a user token; it cannot connect here",
        "Invalid namespace");
    assertThat(refusals).allSatisfy(l -> {
      assertThat(l.get("data").isNull()).as("no data: %s", l).isTrue();
      assertThat(l.get("active").asBoolean()).as("the stock client gives up: %s", l).isFalse();
    });
    // The server kept serving: the right token gets in and is answered.
    assertThat(ack(lines, "listProjects", 0).get("projects")).isEmpty();
    assertThat(store.listDrones(ada.id())).isEmpty();
  }
}
