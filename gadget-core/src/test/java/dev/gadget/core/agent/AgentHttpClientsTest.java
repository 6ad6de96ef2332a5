package dev.gadget.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.OllamaClient;
import dev.gadget.core.llm.OpenAiClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop with the real {@link OllamaClient} and {@link OpenAiClient} against a local
 * {@link HttpServer} replaying recorded tool-calling streams, on a real git repository.
 */
class AgentHttpClientsTest {
  private static final String GREETING = "class Greeting {\n  String text() {\n"
      + "    return \"Hello\";\n  }\n}\n";

  @TempDir Path tmp;
  TestRepo repo;
  ReplayServer server;

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "src/Greeting.java", GREETING);
    server = new ReplayServer();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  /** Answers each POST with the next queued body, written line by line with flushes. */
  static final class ReplayServer implements AutoCloseable {
    final HttpServer http;
    final BlockingQueue<String> bodies = new LinkedBlockingQueue<>();
    final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    final List<String> paths = new CopyOnWriteArrayList<>();
    final List<JsonNode> shown = new CopyOnWriteArrayList<>();
    volatile String contentType = "application/x-ndjson";
    /** When set, the response stops after its first line and waits for this latch. */
    volatile CountDownLatch hold;
    final CountDownLatch clientWentAway = new CountDownLatch(1);

    ReplayServer() throws IOException {
      http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      http.setExecutor(Executors.newCachedThreadPool());
      http.createContext("/", this::handle);
      http.start();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
      if (ex.getRequestURI().getPath().equals("/api/show")) {
        // what Ollama says of a model (trimmed): its context length
        shown.add(GadgetJson.mapper().readTree(ex.getRequestBody().readAllBytes()));
        byte[] info = ("{\"model_info\":{\"general.architecture\":\"qwen3\","
            + "\"qwen3.context_length\":40960}}").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, info.length);
        try (OutputStream out = ex.getResponseBody()) {
          out.write(info);
        }
        return;
      }
      if (ex.getRequestMethod().equals("GET")) {
        // no model list here (OpenAiClient asks one for the context window)
        ex.sendResponseHeaders(404, -1);
        ex.close();
        return;
      }
      paths.add(ex.getRequestURI().getPath());
      requests.add(GadgetJson.mapper().readTree(ex.getRequestBody().readAllBytes()));
      String body = bodies.poll();
      if (body == null) {
        ex.sendResponseHeaders(500, -1);
        ex.close();
        return;
      }
      ex.getResponseHeaders().set("Content-Type", contentType);
      ex.sendResponseHeaders(200, 0);
      try (OutputStream out = ex.getResponseBody()) {
        for (String line : body.split("(?<=\n)")) {
          out.write(line.getBytes(StandardCharsets.UTF_8));
          out.flush();
          CountDownLatch h = hold;
          if (h != null) {
            h.await(30, TimeUnit.SECONDS);
            // The client cancelled: keep writing until the closed connection is noticed.
            for (int i = 0; i < 1000; i++) {
              out.write(": still here\n\n".getBytes(StandardCharsets.UTF_8));
              out.flush();
              TimeUnit.MILLISECONDS.sleep(10);
            }
          }
        }
      } catch (IOException e) {
        clientWentAway.countDown();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void close() {
      CountDownLatch h = hold;
      if (h != null) {
        h.countDown();
      }
      http.stop(0);
    }
  }

  private static String ollama(String... messageJson) {
    StringBuilder sb = new StringBuilder();
    for (String m : messageJson) {
      sb.append("{\"model\":\"qwen3:8b\",\"created_at\":\"2025-06-01T10:00:01Z\",\"message\":")
          .append(m).append(",\"done\":false}\n");
    }
    sb.append("{\"model\":\"qwen3:8b\",\"created_at\":\"2025-06-01T10:00:02Z\",\"message\":"
        + "{\"role\":\"assistant\",\"content\":\"\"},\"done_reason\":\"stop\",\"done\":true,"
        + "\"total_duration\":1200000000,\"prompt_eval_count\":80,\"eval_count\":20}\n");
    return sb.toString();
  }

  private static String sse(String... chunks) {
    StringBuilder sb = new StringBuilder();
    for (String c : chunks) {
      sb.append("data: {\"id\":\"d1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
          + "\"model\":\"deepseek-chat\",\"choices\":[").append(c).append("]}\n\n");
    }
    sb.append("data: {\"id\":\"d1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"deepseek-chat\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,"
        + "\"completion_tokens\":20,\"total_tokens\":120,"
        + "\"completion_tokens_details\":{\"reasoning_tokens\":5}}}\n\n");
    sb.append("data: [DONE]\n\n");
    return sb.toString();
  }

  private AgentOutcome run(LlmClient llm) throws Exception {
    return AgentLoop.builder().llmClient(llm).build()
        .start(AgentRequest.builder(repo.dir(), "qwen3:8b", "Greet the world").build(),
            new RecordingListener())
        .outcome().get(30, TimeUnit.SECONDS);
  }

  @Test
  void ollamaToolCallingStreamsDriveAMultiStepEdit() throws Exception {
    server.bodies.add(ollama(
        "{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Read it first.\"}",
        "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":"
            + "\"read_file\",\"arguments\":{\"path\":\"src/Greeting.java\"}}}]}"));
    server.bodies.add(ollama(
        "{\"role\":\"assistant\",\"content\":\"Editing.\"}",
        "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":"
            + "\"edit_file\",\"arguments\":{\"path\":\"src/Greeting.java\",\"old_text\":"
            + "\"\\\"Hello\\\"\",\"new_text\":\"\\\"Hello, world\\\"\"}}}]}"));
    server.bodies.add(ollama("{\"role\":\"assistant\",\"content\":\"Done.\"}"));

    AgentOutcome outcome = run(OllamaClient.builder().baseUrl(server.baseUrl()).build());

    assertThat(outcome.status()).as(String.valueOf(outcome.message()))
        .isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.text()).isEqualTo("Done.");
    assertThat(repo.read("src/Greeting.java")).isEqualTo(GREETING.replace("Hello", "Hello, world"));
    assertThat(outcome.stats().llmCalls()).isEqualTo(3);
    assertThat(outcome.stats().toolCallCount()).isEqualTo(2);
    assertThat(outcome.stats().promptTokens()).isEqualTo(3 * 80);
    assertThat(server.paths).containsOnly("/api/chat");
    JsonNode last = server.requests.get(2).get("messages");
    assertThat(last).hasSize(6); // system, user, assistant+call, tool, assistant+call, tool
    assertThat(last.get(0).get("role").asText()).isEqualTo("system");
    assertThat(last.get(2).get("tool_calls").get(0).get("function").get("name").asText())
        .isEqualTo("read_file");
    assertThat(last.get(3).get("role").asText()).isEqualTo("tool");
    assertThat(last.get(3).get("content").asText()).isEqualTo(GREETING);
    assertThat(last.get(5).get("content").asText())
        .isEqualTo("Edited src/Greeting.java: replaced 1 line at line 3 with 1 line.");
    assertThat(server.requests.get(0).get("tools")).hasSize(8);
    // the window Ollama said, asked once, capped, and sent as num_ctx so that Ollama uses it
    assertThat(server.shown).hasSize(1);
    assertThat(server.shown.get(0).get("model").asText()).isEqualTo("qwen3:8b");
    assertThat(server.requests).allSatisfy(r -> assertThat(r.at("/options/num_ctx").asInt())
        .isEqualTo(OllamaClient.MAX_DISCOVERED_WINDOW));
    assertThat(outcome.stats().contextBudget())
        .isEqualTo(OllamaClient.MAX_DISCOVERED_WINDOW - 8192);
    assertThat(outcome.stats().contextTokens()).isPositive();
  }

  @Test
  void openAiToolCallingStreamsDriveAMultiStepEdit() throws Exception {
    server.contentType = "text/event-stream";
    server.bodies.add(sse(
        "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,"
            + "\"reasoning_content\":\"Read it first.\"},\"finish_reason\":null}",
        "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":"
            + "\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"pa\"}}]},"
            + "\"finish_reason\":null}",
        "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
            + "\"th\\\":\\\"src/Greeting.java\\\"}\"}}]},\"finish_reason\":null}",
        "{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}"));
    server.bodies.add(sse(
        "{\"index\":0,\"delta\":{\"content\":\"Editing.\"},\"finish_reason\":null}",
        "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_b\",\"type\":"
            + "\"function\",\"function\":{\"name\":\"edit_file\",\"arguments\":"
            + "\"{\\\"path\\\":\\\"src/Greeting.java\\\",\\\"old_text\\\":\\\"\\\\\\\"Hello"
            + "\\\\\\\"\\\",\\\"new_text\\\":\\\"\\\\\\\"Hello, world\\\\\\\"\\\"}\"}}]},"
            + "\"finish_reason\":null}",
        "{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}"));
    server.bodies.add(sse(
        "{\"index\":0,\"delta\":{\"content\":\"Done.\"},\"finish_reason\":null}",
        "{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}"));

    AgentOutcome outcome = run(OpenAiClient.builder().baseUrl(server.baseUrl() + "/v1")
        .apiKey("sk-test").build());

    assertThat(outcome.status()).as(String.valueOf(outcome.message()))
        .isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(repo.read("src/Greeting.java")).isEqualTo(GREETING.replace("Hello", "Hello, world"));
    assertThat(outcome.stats().promptTokens()).isEqualTo(300);
    assertThat(outcome.stats().thinkingTokenCount()).isEqualTo(15);
    assertThat(server.paths).containsOnly("/v1/chat/completions");
    JsonNode second = server.requests.get(1).get("messages");
    JsonNode assistant = second.get(2);
    assertThat(assistant.get("role").asText()).isEqualTo("assistant");
    assertThat(assistant.get("tool_calls").get(0).get("id").asText()).isEqualTo("call_a");
    assertThat(assistant.path("reasoning_content").asText()).isEqualTo("Read it first.");
    JsonNode tool = second.get(3);
    assertThat(tool.get("role").asText()).isEqualTo("tool");
    assertThat(tool.get("tool_call_id").asText()).isEqualTo("call_a");
    assertThat(tool.get("content").asText()).isEqualTo(GREETING);
  }

  @Test
  void cancellingMidStreamClosesTheHttpStream() throws Exception {
    server.hold = new CountDownLatch(1);
    server.bodies.add(ollama("{\"role\":\"assistant\",\"content\":\"Hello\"}",
        "{\"role\":\"assistant\",\"content\":\" world\"}"));
    CountDownLatch streaming = new CountDownLatch(1);
    RecordingListener listener = new RecordingListener() {
      @Override
      public void onChunk(dev.gadget.core.stream.StreamChunk chunk) {
        super.onChunk(chunk);
        streaming.countDown();
      }
    };
    AgentRun run = AgentLoop.builder()
        .llmClient(OllamaClient.builder().baseUrl(server.baseUrl()).build()).build()
        .start(AgentRequest.builder(repo.dir(), "qwen3:8b", "hi").build(), listener);

    assertThat(streaming.await(10, TimeUnit.SECONDS)).isTrue();
    run.cancel();
    AgentOutcome outcome = run.outcome().get(5, TimeUnit.SECONDS);
    server.hold.countDown();

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.CANCELLED);
    assertThat(listener.responseText()).isEqualTo("Hello");
    assertThat(server.clientWentAway.await(15, TimeUnit.SECONDS))
        .as("the server sees the connection closed").isTrue();
    assertThat(Duration.ofMillis(outcome.stats().durationMs())).isLessThan(Duration.ofSeconds(10));
  }
}
