package dev.gadget.examples;

import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code gadget demo} as a person runs it: reached from another address, a prompt into blocks. */
class DemoCommandTest extends CommandsFixture {
  @Test
  void theDemoOnHostAnyIsReachedOnOneAddressOfThisMachineThatIsNotLoopback() throws Exception {
    java.net.InetAddress outside = java.util.Collections.list(
            java.net.NetworkInterface.getNetworkInterfaces()).stream()
        .flatMap(i -> java.util.Collections.list(i.getInetAddresses()).stream())
        .filter(a -> a instanceof java.net.Inet4Address && !a.isLoopbackAddress())
        .findFirst().orElseThrow(() -> new AssertionError("this machine has no IPv4 address "
            + "but loopback: the test needs one to stand for another machine's view"));
    Out o = new Out();
    start(new DemoCommand(), o, Map.of(), "--host", "0.0.0.0", "--port", "0", "--llm",
        "scripted");
    String url = find(o.out(), "Open:\\s+(http://127\\.0\\.0\\.1:\\d+/#token=gdt_\\S+)");
    int port = URI.create(url).getPort();
    String there = "http://" + outside.getHostAddress() + ":" + port + "/";
    HttpResponse<String> config = get(there + "api/config", null);
    assertThat(config.statusCode()).isEqualTo(200);
    assertThat(GadgetJson.mapper().readTree(config.body()).get("socketPort").asInt())
        .as("Socket.IO on the same port").isEqualTo(port);
    assertThat(get(there, null).body()).contains("<title>Gadget</title>");
    String token = url.substring(url.indexOf("#token=") + 7);
    try (WebSocketTransportClient client = WebSocketTransportClient.builder()
        .uri(URI.create("http://" + outside.getHostAddress() + ":" + port)).build()) {
      Connection c = client.connect(Protocol.PAGE_NAMESPACE,
          () -> GadgetJson.mapper().createObjectNode().put("token", token),
          new TransportClient.ClientListener() {});
      JsonNode sessions = c.emitWithAck(Protocol.LIST_SESSIONS, Protocol.args(Map.of()),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0).get("sessions");
      assertThat(sessions).as("Socket.IO on that address and port").hasSize(1);
    }
  }

  @Test
  void theDemoRunsAPromptThroughItsDroneIntoStoredBlocks() throws Exception {
    Out o = new Out();
    Running demo = start(new DemoCommand(), o, Map.of(), "--port", "0", "--llm", "scripted");
    String url = find(o.out(), "Open:\\s+(http://127\\.0\\.0\\.1:\\d+/#token=gdt_\\S+)");
    String token = url.substring(url.indexOf("#token=") + 7);
    String page = url.substring(0, url.indexOf('#'));
    Path root = Path.of(find(o.out(), "Files:\\s+(\\S+)"));
    assertThat(o.out()).contains("SCRIPTED replies", "canned");
    assertThat(Files.isDirectory(root.resolve("greeter/.git"))).isTrue();
    await("the demo's drone", () -> o.out().contains("[drone] connected"));

    int socketPort = GadgetJson.mapper().readTree(get(page + "api/config", null).body())
        .get("socketPort").asInt();
    List<String> events = new CopyOnWriteArrayList<>();
    CompletableFuture<JsonNode> done = new CompletableFuture<>();
    try (WebSocketTransportClient client = WebSocketTransportClient.builder()
        .uri(URI.create("http://127.0.0.1:" + socketPort)).build()) {
      Connection c = client.connect(Protocol.PAGE_NAMESPACE,
          () -> GadgetJson.mapper().createObjectNode().put("token", token),
          new TransportClient.ClientListener() {});
      for (String e : List.of(Protocol.THINKING, Protocol.RESPONSE, Protocol.TOOL_CALL)) {
        c.on(e, (args, ack) -> events.add(e));
      }
      c.on(Protocol.WORK_ORDER_COMPLETE, (args, ack) -> done.complete(args.get(0)));
      JsonNode sessions = c.emitWithAck(Protocol.LIST_SESSIONS, Protocol.args(Map.of()),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0).get("sessions");
      String sessionId = sessions.get(0).get("_id").asText();
      c.emitWithAck(Protocol.WATCH_SESSION, Protocol.args(Map.of("sessionId", sessionId)),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
      JsonNode submitted = c.emitWithAck(Protocol.SUBMIT_PROMPT, Protocol.args(
              Map.of("sessionId", sessionId, "prompt", "What is this project about?")),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0);
      assertThat(submitted.has("turnId")).as("%s", submitted).isTrue();
      JsonNode end = done.get(30, TimeUnit.SECONDS);
      assertThat(end.get("status").asText()).isEqualTo("finished");
      assertThat(events).contains(Protocol.THINKING, Protocol.RESPONSE, Protocol.TOOL_CALL);

      JsonNode turns = GadgetJson.mapper().readTree(
          get(page + "api/sessions/" + sessionId + "/turns", token).body()).get("turns");
      ChatTurn turn = GadgetJson.mapper().treeToValue(turns.get(0), ChatTurn.class);
      assertThat(turn.blocks()).filteredOn(b -> b instanceof TurnBlock.Tool)
          .extracting(b -> ((TurnBlock.Tool) b).content().name())
          .containsExactly("list_dir", "read_file");
      TurnBlock last = turn.blocks().get(turn.blocks().size() - 1);
      assertThat(((TurnBlock.Responding) last).content()).contains("Scripted reply", "Greeter");
    }
    demo.close();
    assertThat(Files.exists(root)).as("the demo's files are removed").isFalse();
  }
}
