package dev.gadget.transport.ws.internal;

import java.time.Duration;
import java.util.Objects;

/** The server's settings, validated by the builder. */
public record ServerOptions(
    String host,
    int port,
    String path,
    Duration pingInterval,
    Duration pingTimeout,
    int maxPayload,
    Duration connectTimeout,
    int maxAttachments,
    Duration handshakeTimeout,
    long maxQueuedBytes,
    long maxUnhandledBytes) {
  public ServerOptions {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(pingInterval, "pingInterval");
    Objects.requireNonNull(pingTimeout, "pingTimeout");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
  }
}
