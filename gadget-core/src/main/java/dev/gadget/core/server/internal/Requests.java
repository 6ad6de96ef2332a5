package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the server registers an event handler: the payload is parsed into its type, and any
 * failure (a bad payload, a refused request, a store that cannot be reached, a bug) becomes an
 * error reply in people's words instead of an exception: the sender always gets an answer.
 */
public final class Requests {
  private static final Logger log = LoggerFactory.getLogger(Requests.class);

  private Requests() {}

  /** Handles one parsed event payload; may answer through {@code ack} (which may be null). */
  @FunctionalInterface
  public interface PayloadHandler<T> {
    void handle(T payload, Ack ack);
  }

  /** As {@link PayloadHandler}, also given the arguments the payload was read from. */
  @FunctionalInterface
  public interface ReceivedHandler<T> {
    void handle(T payload, List<JsonNode> received, Ack ack);
  }

  /** Registers a handler that parses its payload and turns any failure into an error ack. */
  public static <T> void handle(Connection c, String event, Class<T> type,
      PayloadHandler<T> handler) {
    c.on(event, handler(c, event, type, (payload, args, ack) -> handler.handle(payload, ack)));
  }

  /**
   * As {@link #handle}, for a handler that never blocks (a stream event: applied, forwarded and
   * its store writes queued): the transport may run it on the thread that read it.
   */
  public static <T> void handleNonBlocking(Connection c, String event, Class<T> type,
      PayloadHandler<T> handler) {
    c.on(event, EventHandler.nonBlocking(handler(c, event, type,
        (payload, args, ack) -> handler.handle(payload, ack))));
  }

  /**
   * As {@link #handleNonBlocking}, for a handler that relays what it received: it also gets the
   * arguments as they came (see {@link Protocol#receivedArgs}).
   */
  public static <T> void handleNonBlocking(Connection c, String event, Class<T> type,
      ReceivedHandler<T> handler) {
    c.on(event, EventHandler.nonBlocking(handler(c, event, type, handler)));
  }

  private static <T> EventHandler handler(Connection c, String event, Class<T> type,
      ReceivedHandler<T> handler) {
    return (args, ack) -> {
      T payload;
      try {
        payload = Protocol.payload(args, type);
      } catch (IllegalArgumentException e) {
        log.debug("bad '{}' payload from {}: {}", event, c.id(), e.getMessage());
        reply(ack, new Payloads.ErrorReply("bad " + event + " payload: " + e.getMessage()));
        return;
      }
      try {
        handler.handle(payload, args, ack);
      } catch (RequestException e) {
        reply(ack, new Payloads.ErrorReply(e.getMessage()));
      } catch (StoreException e) {
        log.warn("store failed while handling '{}': {}", event, e.getMessage());
        reply(ack, new Payloads.ErrorReply("the server cannot reach its store: " + e.getMessage()));
      } catch (RuntimeException e) {
        // A bug: the sender still gets an answer, without Java's words in it.
        log.warn("handling '{}' from {} failed", event, c.id(), e);
        reply(ack, new Payloads.ErrorReply("the server failed to handle this " + event
            + " request"));
      }
    };
  }

  /** Answers {@code ack} with {@code payload}, if the sender asked for an answer. */
  public static void reply(Ack ack, Object payload) {
    if (ack != null) {
      ack.send(Protocol.args(payload));
    }
  }

  /** {@code value}, or a refusal saying that {@code name} is required. */
  public static String required(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new RequestException(name + " is required");
    }
    return value;
  }
}
