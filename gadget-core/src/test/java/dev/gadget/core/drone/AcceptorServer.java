package dev.gadget.core.drone;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real drone on the in-memory transport and a server that is only a connection acceptor: the
 * test speaks the server's side of the protocol itself.
 */
final class AcceptorServer implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(10);

  private final InMemoryTransport transport = new InMemoryTransport();
  private final BlockingQueue<Connection> drones = new LinkedBlockingQueue<>();
  private TransportServer server;
  GadgetDrone drone;

  /** Starts the server and a drone of workspace {@code ws} whose models are {@code llm}'s. */
  Connection connectedDrone(Path ws, LlmClient llm) throws Exception {
    server = transport.server();
    server.start(new ConnectionAcceptor() {
      @Override
      public Object authenticate(String namespace, JsonNode auth) {
        return "drone";
      }

      @Override
      public void onConnect(Connection connection, Object principal) {
        drones.add(connection);
      }

      @Override
      public void onDisconnect(Connection connection, Object principal, String reason) {}
    });
    drone = GadgetDrone.builder().transport(transport.client()).token("gdt_test")
        .workspaceDir(ws).hostname("test-host").llmClients(p -> llm).ackTimeout(WAIT).build();
    drone.start();
    Connection c = drones.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(c).as("the drone connected").isNotNull();
    return c;
  }

  /** Starts the server and a drone of workspace {@code ws} whose models answer nothing. */
  Connection connectedDrone(Path ws) throws Exception {
    return connectedDrone(ws, ScriptedLlmClient.builder().build());
  }

  /** Asks the drone {@code event} with {@code json}; its answer's first value. */
  static JsonNode ask(Connection c, String event, String json) throws Exception {
    return send(c, event, json).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Asks the drone {@code event} with {@code json} without waiting for the answer. */
  static CompletableFuture<JsonNode> send(Connection c, String event, String json)
      throws Exception {
    return c.emitWithAck(event, List.of(GadgetJson.mapper().readTree(json)), WAIT.multipliedBy(30))
        .thenApply(answer -> answer.get(0));
  }

  @Override
  public void close() {
    if (drone != null) {
      drone.close();
    }
    if (server != null) {
      server.close();
    }
  }
}
