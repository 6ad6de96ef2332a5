package dev.gadget.examples;

import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code --metrics}: what the demo and the server serve at {@code /metrics}, and only then. */
class MetricsCommandTest extends CommandsFixture {
  /** The value of the one sample whose name is {@code name} and whose labels include these. */
  static double sample(String body, String name, String... labels) {
    List<Double> found = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$")
        .matcher(body);
    while (m.find()) {
      String set = m.group(1) == null ? "" : m.group(1);
      boolean all = true;
      for (int i = 0; i + 1 < labels.length; i += 2) {
        all &= set.contains(labels[i] + "=\"" + labels[i + 1] + "\"");
      }
      if (all) {
        found.add(Double.parseDouble(m.group(2)));
      }
    }
    assertThat(found).as("one sample %s %s in:%n%s", name, List.of(labels), body).hasSize(1);
    return found.get(0);
  }

  /** {@code --metrics}: GET /metrics over real HTTP, after a real turn through the demo. */
  @Test
  void theDemoServesItsMetersInPrometheusFormatAfterATurn() throws Exception {
    Out o = new Out();
    start(new DemoCommand(), o, Map.of(), "--port", "0", "--llm", "scripted", "--metrics");
    String url = find(o.out(), "Open:\\s+(http://127\\.0\\.0\\.1:\\d+/#token=gdt_\\S+)");
    String token = url.substring(url.indexOf("#token=") + 7);
    String page = url.substring(0, url.indexOf('#'));
    assertThat(find(o.out(), "Metrics:\\s+(\\S+)")).isEqualTo(page + "metrics");
    await("the demo's drone", () -> o.out().contains("[drone] connected"));
    int socketPort = GadgetJson.mapper().readTree(get(page + "api/config", null).body())
        .get("socketPort").asInt();

    try (WebSocketTransportClient client = WebSocketTransportClient.builder()
        .uri(URI.create("http://127.0.0.1:" + socketPort)).build()) {
      CompletableFuture<JsonNode> done = new CompletableFuture<>();
      Connection c = client.connect(Protocol.PAGE_NAMESPACE,
          () -> GadgetJson.mapper().createObjectNode().put("token", token),
          new TransportClient.ClientListener() {});
      c.on(Protocol.WORK_ORDER_COMPLETE, (args, ack) -> done.complete(args.get(0)));
      String sessionId = c.emitWithAck(Protocol.LIST_SESSIONS, Protocol.args(Map.of()),
              Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0).get("sessions").get(0)
          .get("_id").asText();
      c.emitWithAck(Protocol.WATCH_SESSION, Protocol.args(Map.of("sessionId", sessionId)),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
      c.emitWithAck(Protocol.SUBMIT_PROMPT, Protocol.args(
              Map.of("sessionId", sessionId, "prompt", "What is this project about?")),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
      assertThat(done.get(30, TimeUnit.SECONDS).get("status").asText()).isEqualTo("finished");

      HttpResponse<String> r = send("GET", page + "metrics");

      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).hasValue(
          "text/plain; version=0.0.4; charset=utf-8");
      String body = r.body();
      // The demo's script: list_dir, then read_file, then the answer: three model calls.
      assertThat(sample(body, "gen_ai_client_operation_duration_seconds_count",
          "gen_ai_operation_name", "chat", "gen_ai_provider_name", "scripted",
          "error_type", "none")).isEqualTo(3);
      assertThat(sample(body, "gen_ai_client_token_usage_tokens_count",
          "gen_ai_token_type", "output")).isEqualTo(3);
      assertThat(sample(body, "gen_ai_client_token_usage_tokens_sum",
          "gen_ai_token_type", "output")).isPositive();
      assertThat(sample(body, "gadget_tool_duration_seconds_count",
          "gen_ai_tool_name", "list_dir", "gadget_tool_outcome", "success")).isEqualTo(1);
      assertThat(sample(body, "gadget_tool_duration_seconds_count",
          "gen_ai_tool_name", "read_file", "gadget_tool_outcome", "success")).isEqualTo(1);
      assertThat(sample(body, "gadget_server_turn_duration_seconds_count",
          "gadget_turn_status", "finished")).isEqualTo(1);
      assertThat(sample(body, "gadget_server_turns_active")).isZero();
      assertThat(sample(body, "gadget_server_connections",
          "gadget_connection_kind", "page")).isEqualTo(1);
      assertThat(sample(body, "gadget_server_connections",
          "gadget_connection_kind", "drone")).isEqualTo(1);
      assertThat(body).doesNotContain("sk-test", "What is this project about?");
    }
  }

  @Test
  void theServerServesMetricsOnlyWhenAskedAndOnlyToGet() throws Exception {
    Out plain = new Out();
    start(new ServerCommand(), plain, Map.of(), "--port", "0", "--data-dir", tmp.resolve("a").toString(),
        "--llm", "scripted");
    String page = find(plain.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    assertThat(plain.out()).doesNotContain("Metrics:");
    assertThat(send("GET", page + "metrics").statusCode()).isEqualTo(404);

    Out metered = new Out();
    start(new ServerCommand(), metered, Map.of(), "--port", "0", "--data-dir",
        tmp.resolve("b").toString(), "--llm", "scripted", "--metrics");
    String meteredPage = find(metered.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    assertThat(find(metered.out(), "Metrics:\\s+(\\S+)")).isEqualTo(meteredPage + "metrics");
    HttpResponse<String> get = send("GET", meteredPage + "metrics");
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(sample(get.body(), "gadget_server_turns_active")).isZero();
    assertThat(send("POST", meteredPage + "metrics").statusCode()).isEqualTo(405);
    assertThat(send("GET", meteredPage + "metrics/x").statusCode()).isEqualTo(404);
    assertThat(send("GET", meteredPage + "api/health").statusCode()).isEqualTo(200);
  }
}
