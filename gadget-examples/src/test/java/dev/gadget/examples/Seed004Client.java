package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs src/test/node/seed004-client.js, a client written from seed 004's document alone,
 * against a page fixture's {@code /agent}, and reads what it logged.
 */
final class Seed004Client {
  private Seed004Client() {}

  /** Sends {@code queries} with {@code token}; the client's log, one line an event. */
  static JsonNode run(PageFixture fx, String token, List<Map<String, Object>> queries,
      int timeoutMs, int lingerMs) throws Exception {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.app.socketUri().resolve("/agent").toString());
    c.put("token", token);
    c.put("queries", queries);
    c.put("timeoutMs", timeoutMs);
    c.put("lingerMs", lingerMs);
    return BrowserHarness.run("seed004-client.js", c, Map.of()).get("log");
  }

  /** One query: {@code prompt} in the session {@code sessionId}. */
  static Map<String, Object> query(String prompt, String sessionId) {
    Map<String, Object> q = new LinkedHashMap<>();
    q.put("prompt", prompt);
    q.put("session_id", sessionId);
    return q;
  }

  /** The payloads of the log's {@code agent_event}s, in order. */
  static List<JsonNode> agentEvents(JsonNode log) {
    List<JsonNode> events = new ArrayList<>();
    log.forEach(e -> {
      if (e.get("event").asText().equals("agent_event")) {
        events.add(e.get("payload"));
      }
    });
    return events;
  }
}
