package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A running tool seen from a page: its start, its output as printed, its outcome. */
class ToolProgressTest {
  @TempDir Path tmp;
  RuntimeFixture fx;
  Person ada;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  /** A server, ada, her drone with {@code llm}, and a page of hers. */
  private Page chat(ScriptedLlmClient llm) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    ada = fx.person("ada");
    fx.drone(ada, tmp.resolve("ws"), llm);
    Page page = fx.page(ada.pageToken()).connected();
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    return page;
  }

  private static String submit(Page page, String session, String prompt) throws Exception {
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", prompt));
    assertThat(reply.has("error")).as("submit: %s", reply).isFalse();
    return reply.get("turnId").asText();
  }

  private static List<Page.Event> named(Page page, String turn, String name) {
    return page.eventsOf(turn).stream().filter(e -> e.name().equals(name)).toList();
  }

  private static String output(Page page, String turn) {
    StringBuilder sb = new StringBuilder();
    named(page, turn, Protocol.TOOL_OUTPUT).forEach(e -> sb.append(e.payload().get("data")
        .asText()));
    return sb.toString();
  }

  @Test
  void aThreeSecondCommandsStartAndLinesArriveBeforeItEnds() throws Exception {
    Page page = chat(ScriptedLlmClient.of(
        ScriptedLlmClient.reply().text("Counting.").toolCall("run_command",
            "{\"command\":\"for i in 1 2 3; do echo line$i; sleep 1; done\"}").build(),
        ScriptedLlmClient.reply().text("Counted.").build()));
    String session = fx.watchedSession(page);
    String turn = submit(page, session, "count slowly");

    await("the tool's start", () -> !named(page, turn, Protocol.TOOL_STARTED).isEmpty());
    assertThat(named(page, turn, Protocol.TOOL_CALL)).as("ended already").isEmpty();
    await("line1 as printed", () -> output(page, turn).contains("line1"));
    assertThat(output(page, turn)).doesNotContain("line2");
    assertThat(named(page, turn, Protocol.TOOL_CALL)).as("ended already").isEmpty();
    // a page that starts watching now sees the running tool and what it printed so far
    Page late = fx.page(ada.pageToken()).connected();
    JsonNode snapshot = late.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    JsonNode live = snapshot.get("live").get(0);
    assertThat(live.get("runningTool").get("name").asText()).isEqualTo("run_command");
    assertThat(live.get("runningTool").get("callId").asText()).isEqualTo(
        named(page, turn, Protocol.TOOL_STARTED).get(0).payload().get("callId").asText());
    assertThat(live.get("toolOutput").asText()).startsWith("line1\n");
    // the text before the command is the open block: told once, in `live`; its checkpoint
    // (stored as the command started) is left out of `turns`
    JsonNode open = live.get("openBlock");
    assertThat(open.get("content").asText()).isEqualTo("Counting.");
    assertThat(snapshot.at("/turns/0/blocks").findValues("seq"))
        .noneMatch(seq -> seq.asInt() == open.get("seq").asInt());
    await("line2 as printed", () -> output(page, turn).contains("line2"));
    assertThat(output(page, turn)).doesNotContain("line3");
    assertThat(named(page, turn, Protocol.TOOL_CALL)).as("ended already").isEmpty();

    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(output(page, turn)).isEqualTo("line1\nline2\nline3\n");
    List<Page.Event> outputs = named(page, turn, Protocol.TOOL_OUTPUT);
    assertThat(outputs).hasSizeGreaterThanOrEqualTo(3);
    String callId = named(page, turn, Protocol.TOOL_STARTED).get(0).payload().get("callId")
        .asText();
    assertThat(outputs).allSatisfy(e ->
        assertThat(e.payload().get("callId").asText()).isEqualTo(callId));
    // in the stream's order: started, the output, then the call with its outcome
    List<String> order = page.eventsOf(turn).stream().map(Page.Event::name)
        .filter(n -> n.startsWith("tool")).distinct().toList();
    assertThat(order).containsExactly(Protocol.TOOL_STARTED, Protocol.TOOL_OUTPUT,
        Protocol.TOOL_CALL);
    JsonNode call = named(page, turn, Protocol.TOOL_CALL).get(0).payload().get("call");
    assertThat(call.has("error")).isFalse();
    assertThat(call.get("durationMs").asLong()).isGreaterThanOrEqualTo(2_000);
    // the store keeps the result, not the live events
    ChatTurn stored = fx.store.findTurn(turn).orElseThrow();
    ToolCall storedCall = stored.toolCalls().get(0);
    assertThat(storedCall.failed()).isFalse();
    assertThat(storedCall.durationMs()).isGreaterThanOrEqualTo(2_000);
    assertThat(storedCall.response()).isEqualTo("exit code: 0\nline1\nline2\nline3\n");
    assertThat(stored.blocks()).hasSize(3);
    JsonNode after = late.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    assertThat(after.get("live")).isEmpty();
  }

  @Test
  void aFailedToolIsSentAndStoredAsFailed() throws Exception {
    Page page = chat(ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("read_file", "{\"path\":\".\"}")
            .toolCall("run_command", "{\"command\":\"echo oops; exit 3\"}").build(),
        ScriptedLlmClient.reply().text("Both failed.").build()));
    String session = fx.watchedSession(page);
    String turn = submit(page, session, "fail twice");
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");

    List<Page.Event> calls = named(page, turn, Protocol.TOOL_CALL);
    assertThat(calls).hasSize(2).allSatisfy(e -> {
      assertThat(e.payload().get("call").get("error").asBoolean()).isTrue();
      assertThat(e.payload().get("call").has("durationMs")).isTrue();
    });
    List<ToolCall> stored = fx.store.findTurn(turn).orElseThrow().toolCalls();
    assertThat(stored).hasSize(2).allSatisfy(c -> assertThat(c.failed()).isTrue());
    assertThat(stored.get(0).response()).startsWith("Error: ").contains("directory");
    assertThat(stored.get(1).response()).startsWith("Error: exit code: 3\noops");
  }

  @Test
  void aFloodOfOutputIsStreamedWithinItsBounds() throws Exception {
    Page page = chat(ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("run_command",
            "{\"command\":\"yes z | head -c 3000000\"}").build(),
        ScriptedLlmClient.reply().text("Flooded.").build()));
    String session = fx.watchedSession(page);
    String turn = submit(page, session, "flood");
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    String live = output(page, turn);
    long zs = live.chars().filter(ch -> ch == 'z').count();
    System.out.printf("tool output: 3,000,000 characters printed (1,500,000 z), %d streamed in %d events%n",
        zs, named(page, turn, Protocol.TOOL_OUTPUT).size());
    assertThat(zs).isGreaterThan(0).isLessThanOrEqualTo(64_000);
    String result = fx.store.findTurn(turn).orElseThrow().toolCalls().get(0).response();
    assertThat(result.length()).isLessThan(31_000);
  }

  @Test
  void workOrderCompleteCarriesTheFinalReplyAndTheServerKnowsTheDronesTools() throws Exception {
    Page page = chat(ScriptedLlmClient.of(
        ScriptedLlmClient.reply().text("Let me look.").toolCall("list_dir", "{}").build(),
        ScriptedLlmClient.reply().thinking("Done looking.").text("It holds a README.").build()));
    String session = fx.watchedSession(page);
    String turn = submit(page, session, "what is there?");
    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("finished");
    assertThat(done.get("text").asText()).isEqualTo("It holds a README.");

    await("the drone's tools", () -> {
      try {
        JsonNode drones = page.request(Protocol.LIST_DRONES, Map.of()).get("drones");
        return drones.size() == 1 && drones.get(0).path("toolCount").asInt()
            == dev.gadget.core.agent.tools.CodingTools.all().size();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
  }
}
