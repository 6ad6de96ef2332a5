package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The payload of the Engine.IO v4 OPEN packet:
 * {@code {"sid":"...","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}}.
 */
public record OpenHandshake(
    String sid, List<String> upgrades, long pingInterval, long pingTimeout, long maxPayload) {
  public OpenHandshake {
    Objects.requireNonNull(sid, "sid");
    upgrades = List.copyOf(upgrades);
  }

  /** The OPEN packet's JSON text. */
  public String toJson() {
    ObjectNode node = SocketCodec.JSON.createObjectNode();
    node.put("sid", sid);
    ArrayNode up = node.putArray("upgrades");
    upgrades.forEach(up::add);
    node.put("pingInterval", pingInterval);
    node.put("pingTimeout", pingTimeout);
    node.put("maxPayload", maxPayload);
    return node.toString();
  }

  /** Parses an OPEN packet's payload. */
  public static OpenHandshake parse(String json) throws ProtocolException {
    JsonNode node = SocketCodec.parseJson(json);
    if (!node.isObject() || !node.path("sid").isTextual()
        || !node.path("pingInterval").canConvertToLong()
        || !node.path("pingTimeout").canConvertToLong()) {
      throw new ProtocolException("malformed Engine.IO OPEN packet: " + SocketCodec.abbreviate(json));
    }
    List<String> upgrades = new ArrayList<>();
    node.path("upgrades").forEach(u -> upgrades.add(u.asText()));
    long interval = node.get("pingInterval").asLong();
    long timeout = node.get("pingTimeout").asLong();
    if (interval <= 0 || timeout <= 0) {
      throw new ProtocolException("non-positive ping interval or timeout in OPEN packet");
    }
    return new OpenHandshake(node.get("sid").asText(), upgrades, interval, timeout,
        node.path("maxPayload").asLong(0));
  }
}
