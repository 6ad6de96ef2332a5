package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One Socket.IO v5 packet. {@code data} may hold {@link com.fasterxml.jackson.databind.node.BinaryNode}s
 * anywhere; the codec turns them into placeholders and attachments. Decoded packets have their
 * attachments put back, so a decoded BINARY_EVENT is an {@link Type#EVENT} and a decoded
 * BINARY_ACK an {@link Type#ACK}.
 *
 * @param namespace the namespace, {@code "/"} by default
 * @param id the ack id, or {@code null}
 * @param data the payload, or {@code null} for none
 */
public record SocketPacket(Type type, String namespace, Long id, JsonNode data) {
  /** Socket.IO v5 packet types. */
  public enum Type {
    CONNECT, DISCONNECT, EVENT, ACK, CONNECT_ERROR, BINARY_EVENT, BINARY_ACK
  }

  public SocketPacket {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(namespace, "namespace");
  }

  @Override
  public String toString() {
    return "SocketPacket{" + type + " " + namespace + (id == null ? "" : " #" + id) + "}";
  }
}
