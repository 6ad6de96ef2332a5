package dev.gadget.transport.ws.internal;

import java.util.Objects;

/**
 * One Engine.IO v4 text packet: a one-digit type and an optional string payload. Over WebSocket
 * each text frame is one packet; a binary frame is a MESSAGE whose payload is the raw bytes (no
 * prefix byte), so binary frames never pass through this class.
 */
public record EnginePacket(Type type, String data) {
  /** Engine.IO v4 packet types. */
  public enum Type {
    OPEN, CLOSE, PING, PONG, MESSAGE, UPGRADE, NOOP;

    char code() {
      return (char) ('0' + ordinal());
    }
  }

  private static final Type[] TYPES = Type.values();
  public static final EnginePacket PING = new EnginePacket(Type.PING, "");
  public static final EnginePacket PONG = new EnginePacket(Type.PONG, "");
  public static final EnginePacket CLOSE = new EnginePacket(Type.CLOSE, "");

  public EnginePacket {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(data, "data");
  }

  /** A MESSAGE carrying {@code data}. */
  public static EnginePacket message(String data) {
    return new EnginePacket(Type.MESSAGE, data);
  }

  /** The text frame for this packet: the type digit followed by the payload. */
  public String encode() {
    return type.code() + data;
  }

  /** Decodes one text frame. */
  public static EnginePacket decode(String frame) throws ProtocolException {
    if (frame == null || frame.isEmpty()) {
      throw new ProtocolException("empty Engine.IO packet");
    }
    int code = frame.charAt(0) - '0';
    if (code < 0 || code >= TYPES.length) {
      throw new ProtocolException("unknown Engine.IO packet type '" + frame.charAt(0) + "'");
    }
    return new EnginePacket(TYPES[code], frame.substring(1));
  }
}
