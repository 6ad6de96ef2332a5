package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.ConnectionRefusedException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The server application the interop tests run: namespaces {@code /} and {@code /admin}, token
 * {@code "bad"} refused, and a few handlers (echo, sum, bin, kick, ask, ask-ignored). Every
 * connect, disconnect and event is recorded as a line in {@link #records}.
 */
public final class RecordingAcceptor implements ConnectionAcceptor {
  public final BlockingQueue<String> records = new LinkedBlockingQueue<>();

  @Override
  public Object authenticate(String namespace, JsonNode auth) {
    if (!Set.of("/", "/admin").contains(namespace)) {
      throw new ConnectionRefusedException("Invalid namespace", null);
    }
    if ("bad".equals(auth.path("token").asText())) {
      throw new ConnectionRefusedException("not authorized",
          JsonNodeFactory.instance.objectNode().put("reason", "bad token"));
    }
    return auth;
  }

  @Override
  public void onConnect(Connection c, Object principal) {
    records.add("connect " + c.namespace() + " " + c.id() + " " + principal);
    c.on("echo", (args, ack) -> {
      records.add("event " + c.namespace() + " echo " + args);
      c.emit("echoed", args);
    });
    c.on("sum", (args, ack) -> ack.send(List.of(IntNode.valueOf(args.get(0).asInt() + args.get(1).asInt()))));
    c.on("bin", (args, ack) -> {
      records.add("event " + c.namespace() + " bin " + describe(args));
      ack.send(args);
      c.emit("bin-back", args);
    });
    c.on("kick", (args, ack) -> c.disconnect());
    c.on("ask", (args, ack) -> c.emitWithAck("question", List.of(IntNode.valueOf(21)), Duration.ofSeconds(5))
        .whenComplete((answer, error) -> {
          records.add("answer " + (error == null ? answer : error));
          if (error == null) {
            c.emit("answered", answer);
          }
        }));
    c.on("ask-ignored", (args, ack) -> c.emitWithAck("nobody", List.of(), Duration.ofMillis(300))
        .whenComplete((answer, error) -> {
          records.add("ignored-answer " + (error == null ? answer : error.getClass().getSimpleName()));
          c.emit("ack-timeout", List.of(TextNode.valueOf(error == null ? "none" : error.getMessage())));
        }));
  }

  @Override
  public void onDisconnect(Connection c, Object principal, String reason) {
    records.add("disconnect " + c.namespace() + " " + c.id() + " " + reason);
  }

  /** Binary args as "bin:" + length so records are readable. */
  static String describe(List<JsonNode> args) {
    return args.stream()
        .map(a -> a.isBinary() ? "bin:" + ((BinaryNode) a).binaryValue().length : a.toString())
        .collect(Collectors.joining(",", "[", "]"));
  }

  /** The next record, which must start with {@code prefix} (waits up to 10 s). */
  public String expect(String prefix) throws InterruptedException {
    String next = records.poll(10, TimeUnit.SECONDS);
    assertThat(next).as("next server record").isNotNull().startsWith(prefix);
    return next;
  }

  /** Asserts no record arrives within {@code quiet}. */
  public void expectNothingFor(Duration quiet) throws InterruptedException {
    assertThat(records.poll(quiet.toMillis(), TimeUnit.MILLISECONDS)).as("unexpected record").isNull();
  }
}
