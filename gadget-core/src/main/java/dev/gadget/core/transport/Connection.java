package dev.gadget.core.transport;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One side of a connection in one namespace: Socket.IO's socket. Events are named and carry a
 * list of JSON arguments ({@link com.fasterxml.jackson.databind.node.BinaryNode} for binary
 * data); an event may ask for an acknowledgement.
 *
 * <p><b>Threading.</b> Methods are thread-safe. Handlers registered with {@link #on} run one at a
 * time per connection, in the order the events arrived, on a transport thread; a slow handler
 * delays only its own connection. A handler that throws is logged once and the connection goes
 * on.
 */
public interface Connection {
  /** This connection's id (Socket.IO's socket id). */
  String id();

  /** The namespace, such as {@code "/"} or {@code "/drone"}. */
  String namespace();

  /**
   * Sends an event without asking for an acknowledgement. Never blocks for the network. On a
   * server connection that has closed, the event is dropped; a client connection buffers it
   * while it reconnects (see {@link TransportClient}). An argument may be JSON text already
   * written ({@link dev.gadget.core.GadgetJson#raw}): a transport sends that text as it is.
   */
  void emit(String event, List<JsonNode> args);

  /**
   * Sends an event and asks for an acknowledgement. The future completes with the ack's
   * arguments, or exceptionally with a {@link TransportException} when {@code timeout} passes or
   * the connection closes first.
   */
  CompletableFuture<List<JsonNode>> emitWithAck(String event, List<JsonNode> args, Duration timeout);

  /** Handles every later {@code event} on this connection, replacing an earlier handler. */
  void on(String event, EventHandler handler);

  /** Whether the connection is open now. */
  boolean isConnected();

  /** Closes the connection (a Socket.IO DISCONNECT). Idempotent. */
  void disconnect();
}
