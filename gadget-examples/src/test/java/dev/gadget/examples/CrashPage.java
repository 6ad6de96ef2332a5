package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.EventTurns;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A page of the process tests: watches a session over a {@link WebSocketTransportClient} and
 * records what it is sent, with when; tells the blocks it saw finished and the one still open.
 */
final class CrashPage {
  /** An event a page received, with when. */
  record Event(String name, JsonNode payload, long at) {}

  /** A finished block as a page assembled it: its position, mode and text (or call id). */
  record Block(int seq, String mode, String content) {
    boolean storedIn(ChatTurn t) {
      if (seq >= t.blocks().size()) {
        return false;
      }
      TurnBlock b = t.blocks().get(seq);
      return b.seq() == seq && b.mode().equals(mode) && content.equals(
          b instanceof TurnBlock.Tool tool ? tool.content().callId()
              : b instanceof TurnBlock.Thinking th ? th.content()
              : ((TurnBlock.Responding) b).content());
    }
  }

  final WebSocketTransportClient client;
  final Connection connection;
  final String sessionId;
  final List<Event> events = new CopyOnWriteArrayList<>();
  final JsonNode snapshot;

  CrashPage(int socketPort, String token, String sessionId) {
    this.sessionId = sessionId;
    client = WebSocketTransportClient.builder()
        .uri(java.net.URI.create("http://127.0.0.1:" + socketPort)).reconnection(false).build();
    connection = client.connect(Protocol.PAGE_NAMESPACE,
        () -> GadgetJson.mapper().createObjectNode().put("token", token),
        new TransportClient.ClientListener() {});
    for (String e : List.of(Protocol.TURN_STARTED, Protocol.THINKING, Protocol.RESPONSE,
        Protocol.TOOL_CALL, Protocol.WORK_ORDER_COMPLETE, Protocol.BLOCKS_SUPERSEDED)) {
      connection.on(e, (args, ack) -> events.add(new Event(e, args.get(0), System.nanoTime())));
    }
    snapshot = request(Protocol.WATCH_SESSION, Map.of("sessionId", sessionId));
  }

  JsonNode request(String event, Map<String, ?> payload) {
    try {
      return connection.emitWithAck(event, Protocol.args(payload), Duration.ofSeconds(10))
          .get(10, TimeUnit.SECONDS).get(0);
    } catch (Exception e) {
      throw new AssertionError(event + " failed", e);
    }
  }

  Map<String, String> snapshotStatuses() {
    Map<String, String> out = new HashMap<>();
    for (JsonNode t : snapshot.path("turns")) {
      out.put(t.get("_id").asText(), t.get("status").asText());
    }
    return out;
  }

  List<Event> events(String turnId) {
    List<Event> out = new ArrayList<>();
    for (Event e : events) {
      if (turnId.equals(EventTurns.turnId(e.name(), e.payload()))) {
        out.add(e);
      }
    }
    return out;
  }

  boolean has(String turnId, String name) {
    return events(turnId).stream().anyMatch(e -> e.name().equals(name));
  }

  boolean ended(String turnId) {
    return has(turnId, Protocol.WORK_ORDER_COMPLETE);
  }

  /** The blocks this page saw finished, if it watched the turn from its start. */
  List<Block> finishedBlocks(String turnId) {
    List<Event> es = events(turnId);
    List<Block> out = new ArrayList<>();
    if (es.isEmpty() || !es.get(0).name().equals(Protocol.TURN_STARTED)) {
      return out;
    }
    String mode = null;
    StringBuilder text = new StringBuilder();
    for (Event e : es) {
      String m = e.name().equals(Protocol.THINKING) ? "thinking"
          : e.name().equals(Protocol.RESPONSE) ? "responding" : null;
      if (m != null && m.equals(mode)) {
        text.append(e.payload().get("data").asText());
        continue;
      }
      if (mode != null && !e.name().equals(Protocol.TURN_STARTED)) {
        out.add(new Block(out.size(), mode, text.toString()));
        mode = null;
        text.setLength(0);
      }
      if (m != null) {
        mode = m;
        text.append(e.payload().get("data").asText());
      } else if (e.name().equals(Protocol.TOOL_CALL)) {
        out.add(new Block(out.size(), "tool", e.payload().get("call").get("callId").asText()));
      }
    }
    return out;
  }

  /** The tokens of the block still open at the end of {@code events}: {seq, data, at}. */
  static List<Object[]> openTokens(List<Event> events) {
    List<Object[]> open = new ArrayList<>();
    String mode = null;
    int closed = 0;
    for (Event e : events) {
      if (e.name().equals(Protocol.TURN_STARTED)) {
        continue;
      }
      String m = e.name().equals(Protocol.THINKING) ? "thinking"
          : e.name().equals(Protocol.RESPONSE) ? "responding" : null;
      if (m != null && m.equals(mode)) {
        open.add(new Object[] {closed, e.payload().get("data").asText(), e.at()});
        continue;
      }
      if (mode != null) {
        closed++;
        mode = null;
        open.clear();
      }
      if (m != null) {
        mode = m;
        open.add(new Object[] {closed, e.payload().get("data").asText(), e.at()});
      } else if (e.name().equals(Protocol.TOOL_CALL)) {
        closed++;
      }
    }
    return open;
  }
}
