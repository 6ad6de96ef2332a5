package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The stock socket.io-client page of {@link StockPageRoundTripTest} loses its connection mid-turn
 * and connects again: it assembles exactly the model's text from the snapshot and the live events.
 */
class StockPageReconnectTest extends StockPageFixture {
  /**
   * The page loses its connection mid-turn while the model keeps streaming, connects again,
   * watches the session and assembles exactly the model's text from the snapshot's stored blocks,
   * its {@code openBlock} and the live events after its {@code lastSeq}. Nothing depends on
   * timing: the model waits after 40 text tokens until the page has dropped (so the drop is
   * mid-turn), the page watches again only once a second page (a {@link WebSocketTransportClient}
   * watching the same session) has seen the server forward 10 more events (so the page did miss
   * tokens, and the snapshot must supply them), and the model holds its last token until the
   * page has its snapshot (so the turn is still running when it watches). {@code how}: the page
   * loses its WebSocket and the stock manager reconnects by itself ({@code transport}), or it
   * calls {@code socket.disconnect()} and later {@code socket.connect()} ({@code socket}).
   */
  @ParameterizedTest
  @ValueSource(strings = {"transport", "socket"})
  void theStockClientAsThePageReconnectsMidTurn(String how) throws Exception {
    List<String> tokens = IntStream.range(0, 200).mapToObj(i -> "token" + i).toList();
    String words = String.join(" ", tokens);
    ModelGate beforeDrop = gate();
    ModelGate beforeLastToken = gate();
    LlmClient llm = new GatedLlm(ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().thinking("Planning it.").text(words).build())
        .tokenDelay(Duration.ofMillis(1))
        .build(), (call, token) -> Map.of(40, beforeDrop, tokens.size() - 1, beforeLastToken)
        .get(token));
    startDrone(llm);

    List<JsonNode> lines = new ArrayList<>();
    WebSocketTransportClient observerClient = WebSocketTransportClient.builder()
        .uri(transport.uri()).build();
    try (NodeProcess node = page("reconnect", Map.of("token", pageToken, "gitUrl", gitUrl,
        "prompt", "count", "how", how))) {
      readUntil(node, lines, line -> is(line, "response")
          && lines.stream().filter(l -> is(l, "response")).count() >= 20);
      beforeDrop.awaitReached();
      node.send("drop");
      readUntil(node, lines, line -> is(line, "dropping"));
      long seenBeforeDrop = maxSeq(streamEvents(lines, 1));
      beforeDrop.open();
      AtomicLong forwarded = observe(observerClient,
          ack(lines, "createSession", 0).get("session").get("_id").asText());
      await("the server forwarded 10 events the page did not get",
          () -> forwarded.get() >= seenBeforeDrop + 10);
      node.send("watch");
      readUntil(node, lines, line -> is(line, "snapshot"));
      beforeLastToken.open();
      readUntil(node, lines, line -> is(line, "done"));
    } finally {
      observerClient.close();
    }

    String turnId = ack(lines, "submitPrompt", 0).get("turnId").asText();
    List<JsonNode> first = streamEvents(lines, 1);
    List<JsonNode> second = streamEvents(lines, 2);
    JsonNode disconnect = lines.stream().filter(l -> is(l, "disconnect")).findFirst().orElseThrow();
    if (how.equals("transport")) {
      assertThat(disconnect.get("active").asBoolean()).as("reconnects by itself").isTrue();
    } else {
      assertThat(disconnect.get("reason").asText()).isEqualTo("io client disconnect");
    }
    assertThat(first.get(0).get("event").asText()).isEqualTo("turnStarted");
    assertThat(seqs(first.subList(1, first.size()))).isEqualTo(range(0, first.size() - 1));
    assertThat(first).noneMatch(e -> is(e, "workOrderComplete"));

    JsonNode snapshot = lines.stream().filter(l -> is(l, "snapshot")).findFirst().orElseThrow()
        .get("payload");
    assertThat(snapshot.get("live")).hasSize(1);
    JsonNode live = snapshot.get("live").get(0);
    assertThat(live.get("turnId").asText()).isEqualTo(turnId);
    long lastSeq = live.get("lastSeq").asLong();
    assertThat(lastSeq).as("the snapshot reflects events the page never got")
        .isGreaterThan(maxSeq(first));
    assertThat(live.get("openBlock").get("mode").asText()).isEqualTo("responding");

    // After joining, the page got every event after lastSeq once, in order, up to the end.
    assertThat(second).allSatisfy(e -> assertThat(e.get("argc").asInt()).isEqualTo(1));
    assertThat(second).noneMatch(e -> is(e, "turnStarted"));
    assertThat(seqs(second)).isEqualTo(range(lastSeq + 1, second.size()));
    JsonNode done = second.get(second.size() - 1);
    assertThat(done.get("event").asText()).isEqualTo("workOrderComplete");
    assertThat(done.get("payload").get("status").asText()).isEqualTo("finished");

    // Some tokens reached the page only through the snapshot; still the text is exact.
    Set<String> received = Arrays.stream((text(first, "response") + " "
        + text(second, "response")).trim().split("\\s+")).collect(Collectors.toSet());
    assertThat(tokens).anyMatch(t -> !received.contains(t));
    List<String> assembled = assemble(snapshot, turnId, second);
    assertThat(assembled).containsExactly("thinking:Planning it.", "responding:" + words);
    ChatTurn stored = store.findTurn(turnId).orElseThrow();
    assertThat(stored.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(describe(blocks(stored))).isEqualTo(assembled);
  }

  /**
   * A second page on a {@link WebSocketTransportClient} watching {@code sessionId}: the highest
   * {@code seq} the server has forwarded (or reflected in the snapshot) so far.
   */
  private AtomicLong observe(WebSocketTransportClient client, String sessionId) throws Exception {
    AtomicLong highest = new AtomicLong(-1);
    Connection c = client.connect("/", () -> JSON.createObjectNode().put("token", pageToken),
        new TransportClient.ClientListener() {});
    for (String event : List.of("thinking", "response", "toolCall")) {
      c.on(event, (args, ack) -> highest.accumulateAndGet(args.get(0).get("seq").asLong(),
          Math::max));
    }
    JsonNode snapshot = c.emitWithAck("watchSession",
            List.of(JSON.createObjectNode().put("sessionId", sessionId)), WAIT)
        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).get(0);
    for (JsonNode live : snapshot.get("live")) {
      highest.accumulateAndGet(live.get("lastSeq").asLong(), Math::max);
    }
    return highest;
  }
}
