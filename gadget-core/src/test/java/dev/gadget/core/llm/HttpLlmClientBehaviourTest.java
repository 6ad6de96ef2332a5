package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import dev.gadget.core.llm.LlmTestServer.Recorded;
import dev.gadget.core.llm.LlmTestServer.Reply;
import dev.gadget.core.llm.RecordingListener.Outcome;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Retries, timeouts, cancellation and concurrency of the HTTP clients, on a real server. */
class HttpLlmClientBehaviourTest {
  private static final String OLLAMA_OK = Recordings.load("ollama/thinking-then-content.ndjson");
  private static final String OPENAI_OK = Recordings.load("openai/text-with-usage.sse");
  private static final String OPENAI_FIRST_CHUNKS =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"},\"finish_reason\":null}]}\n\n";
  private static final String OPENAI_MORE =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" again\"},\"finish_reason\":null}]}\n\n";

  private final LlmTestServer server = LlmTestServer.start();
  private final RetryPolicy fast = new RetryPolicy(2, Duration.ofMillis(5), Duration.ofMillis(20),
      Duration.ofSeconds(3));

  @AfterEach
  void stop() {
    server.close();
  }

  private OllamaClient ollama() {
    return OllamaClient.builder().baseUrl(server.url()).retryPolicy(fast).build();
  }

  private OpenAiClient openAi() {
    return OpenAiClient.builder().baseUrl(server.v1()).retryPolicy(fast).build();
  }

  private OpenAiClient openAi(Duration firstByte, Duration idle) {
    return OpenAiClient.builder().baseUrl(server.v1()).retryPolicy(fast)
        .firstByteTimeout(firstByte).idleTimeout(idle).build();
  }

  // ---- retries ----

  @Test
  void retries5xxBeforeTheStreamAndThenSucceeds() {
    server.enqueue(503, "{\"error\":\"server busy\"}");
    server.enqueue(500, "");
    server.enqueue(OLLAMA_OK).delivery(Delivery.RANDOM_SPLITS);
    RecordingListener l = new RecordingListener();
    ollama().stream(OllamaClientTest.HI, l);
    assertThat(l.assertContract().completed().text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(server.requestCount()).isEqualTo(3);
  }

  @Test
  void retries408And429() {
    server.enqueue(408, "");
    server.enqueue(429, "{\"error\":{\"message\":\"slow down\"}}");
    server.enqueue(OPENAI_OK);
    RecordingListener l = new RecordingListener();
    openAi().stream(OpenAiClientTest.HI, l);
    l.assertContract().completed();
    assertThat(server.requestCount()).isEqualTo(3);
  }

  @Test
  void honoursRetryAfterOn429() {
    server.enqueue(429, "{\"error\":{\"message\":\"Rate limit reached\",\"code\":\"rate_limit\"}}")
        .header("Retry-After", "1");
    server.enqueue(OPENAI_OK);
    RecordingListener l = new RecordingListener();
    openAi().stream(OpenAiClientTest.HI, l);
    l.assertContract().completed();
    Recorded first = server.takeRequest();
    Recorded second = server.takeRequest();
    assertThat(Duration.ofNanos(second.arrivedNanos() - first.arrivedNanos()))
        .isGreaterThanOrEqualTo(Duration.ofMillis(950));
  }

  @Test
  void aRetryAfterLongerThanTheMaximumFailsAtOnceCarryingIt() {
    server.enqueue(429, "{\"error\":{\"message\":\"quota\"}}").header("Retry-After", "120");
    RecordingListener l = new RecordingListener();
    openAi().stream(OpenAiClientTest.HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.HTTP);
    assertThat(e.statusCode()).isEqualTo(429);
    assertThat(e.isRetryable()).isTrue();
    assertThat(e.retryAfter()).contains(Duration.ofSeconds(120));
    assertThat(server.requestCount()).isEqualTo(1);
  }

  @Test
  void givesUpAfterMaxRetries() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(502, "bad gateway " + i);
    }
    RecordingListener l = new RecordingListener();
    openAi().stream(OpenAiClientTest.HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.statusCode()).isEqualTo(502);
    assertThat(e.providerMessage()).isEqualTo("bad gateway 2");
    assertThat(server.requestCount()).isEqualTo(3);
  }

  @Test
  void neverRetriesOther4xx() {
    for (int status : new int[] {400, 401, 404, 422}) {
      server.enqueue(status, "{\"error\":{\"message\":\"no\"}}");
      RecordingListener l = new RecordingListener();
      openAi().stream(OpenAiClientTest.HI, l);
      assertThat(l.assertContract().failed().statusCode()).isEqualTo(status);
    }
    assertThat(server.requestCount()).isEqualTo(4);
  }

  @Test
  void neverRetriesOnceAChunkArrived() {
    // an error after a chunk, and a stream cut after a chunk: both end the call, one request each
    server.enqueue(Recordings.load("openai/error-mid-stream.sse"));
    server.enqueue(Recordings.load("ollama/truncated.ndjson"));
    RecordingListener a = new RecordingListener();
    openAi().stream(OpenAiClientTest.HI, a);
    assertThat(a.assertContract().failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    RecordingListener b = new RecordingListener();
    ollama().stream(OllamaClientTest.HI, b);
    assertThat(b.assertContract().failed().kind()).isEqualTo(LlmException.Kind.PROTOCOL);
    assertThat(server.requestCount()).isEqualTo(2);
  }

  @Test
  void connectFailuresAreRetriedThenReported() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    OllamaClient dead = OllamaClient.builder().baseUrl(URI.create("http://127.0.0.1:" + port))
        .retryPolicy(fast).build();
    RecordingListener l = new RecordingListener();
    dead.stream(OllamaClientTest.HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.CONNECT);
    assertThat(e.isRetryable()).isTrue();
    assertThat(e).hasMessageContaining("127.0.0.1:" + port);
  }

  // ---- timeouts ----

  @Test
  void aStreamThatStallsHalfwayEndsInAnIdleTimeoutWithThePartialText() {
    String body = OPENAI_FIRST_CHUNKS + OPENAI_OK;
    server.enqueue(body).stallAfter(OPENAI_FIRST_CHUNKS.length());
    RecordingListener l = new RecordingListener();
    long start = System.nanoTime();
    openAi(Duration.ofSeconds(5), Duration.ofMillis(300)).stream(OpenAiClientTest.HI, l);
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.TIMEOUT);
    assertThat(o.failed()).hasMessageContaining("stalled");
    assertThat(o.partial().text()).isEqualTo("Hello");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(290));
    assertThat(server.requestCount()).isEqualTo(1);
  }

  @Test
  void headersWithoutABodyEndInAFirstByteTimeout() {
    server.enqueue(OPENAI_OK).stallAfter(0);
    RecordingListener l = new RecordingListener();
    openAi(Duration.ofMillis(300), Duration.ofSeconds(5)).stream(OpenAiClientTest.HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.TIMEOUT);
    assertThat(e).hasMessageContaining("first-byte");
    assertThat(server.requestCount()).isEqualTo(1);
  }

  @Test
  void noHeadersEndInAFirstByteTimeout() {
    server.enqueue(OPENAI_OK).stallBeforeHeaders();
    RecordingListener l = new RecordingListener();
    openAi(Duration.ofMillis(300), Duration.ofSeconds(5)).stream(OpenAiClientTest.HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.TIMEOUT);
    assertThat(server.requestCount()).isEqualTo(1);
  }

  @Test
  void aSlowButSteadyStreamIsNotAnIdleTimeout() {
    // small writes, each well within the idle timeout, the whole well beyond it
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      body.append("data: {\"choices\":[{\"delta\":{\"content\":\"").append(i).append(" \"}}]}\n\n");
    }
    body.append("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    server.enqueue(body.toString()).delivery(Delivery.RANDOM_SPLITS).pace(Duration.ofMillis(20));
    RecordingListener l = new RecordingListener();
    long start = System.nanoTime();
    openAi(Duration.ofSeconds(5), Duration.ofMillis(250)).stream(OpenAiClientTest.HI, l);
    assertThat(l.assertContract().completed().text()).startsWith("0 1 2").endsWith("11 ");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(500));
  }

  // ---- cancel ----

  @Test
  void cancelClosesTheResponseBodySoTheServerSeesTheConnectionClose() throws Exception {
    Reply reply = server.enqueue(OPENAI_FIRST_CHUNKS).thenEndlessly(List.of(OPENAI_MORE));
    RecordingListener l = new RecordingListener();
    LlmCall call = openAi().stream(OpenAiClientTest.HI, l);
    l.awaitFirstEvent();
    call.cancel();
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.CANCELLED);
    assertThat(o.partial().text()).startsWith("Hello");
    assertThat(reply.writeFailed).succeedsWithin(10, TimeUnit.SECONDS)
        .isInstanceOf(IOException.class);
    call.cancel(); // again: nothing
    assertThat(call.result()).failsWithin(1, TimeUnit.SECONDS);
    assertThat(l.events).filteredOn(e -> e.startsWith("error")).hasSize(1);
  }

  @Test
  void cancelFromInsideAListenerCallback() {
    Reply reply = server.enqueue(OLLAMA_OK.substring(0, OLLAMA_OK.indexOf('\n') + 1))
        .thenEndlessly(List.of("{\"message\":{\"content\":\"more\"},\"done\":false}\n"));
    LlmCall[] call = new LlmCall[1];
    RecordingListener l = new RecordingListener();
    l.onEachEvent(e -> {
      while (call[0] == null) {
        Thread.onSpinWait();
      }
      call[0].cancel();
    });
    call[0] = ollama().stream(OllamaClientTest.HI, l);
    assertThat(l.assertContract().failed().kind()).isEqualTo(LlmException.Kind.CANCELLED);
    assertThat(l.events).containsExactly("thinking:Let me think", "error:CANCELLED");
    assertThat(reply.writeFailed).succeedsWithin(10, TimeUnit.SECONDS);
  }

  @Test
  void cancelBeforeTheResponseArrivesAlsoClosesTheConnection() {
    Reply reply = server.enqueue(OPENAI_FIRST_CHUNKS).delayHeaders(Duration.ofMillis(300))
        .thenEndlessly(List.of(OPENAI_MORE));
    RecordingListener l = new RecordingListener();
    LlmCall call = openAi().stream(OpenAiClientTest.HI, l);
    server.takeRequest();
    call.cancel();
    assertThat(l.assertContract().failed().kind()).isEqualTo(LlmException.Kind.CANCELLED);
    assertThat(l.events).containsExactly("error:CANCELLED");
    assertThat(reply.writeFailed).succeedsWithin(10, TimeUnit.SECONDS);
  }

  @Test
  void cancelDuringARetryWait() throws Exception {
    server.enqueue(503, "busy").header("Retry-After", "3");
    WatchedScheduler timer = new WatchedScheduler(Duration.ofSeconds(3)); // the Retry-After wait
    try {
      OpenAiClient.Builder b = OpenAiClient.builder().baseUrl(server.v1()).retryPolicy(fast);
      b.scheduler = timer;
      RecordingListener l = new RecordingListener();
      LlmCall call = b.build().stream(OpenAiClientTest.HI, l);
      ScheduledFuture<?> retryWait = timer.scheduled.get(10, TimeUnit.SECONDS);
      call.cancel(); // the 503 was read and the retry is waiting: cancel now
      assertThat(l.assertContract().failed().kind()).isEqualTo(LlmException.Kind.CANCELLED);
      assertThat(l.events).containsExactly("error:CANCELLED");
      assertThat(retryWait.isCancelled()).as("the retry wait was called off").isTrue();
      assertThat(server.requestCount()).as("no second request").isEqualTo(1);
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void cancelAfterTheEndDoesNothing() {
    server.enqueue(OPENAI_OK);
    RecordingListener l = new RecordingListener();
    LlmCall call = openAi().stream(OpenAiClientTest.HI, l);
    l.await().completed();
    call.cancel();
    assertThat(call.result()).succeedsWithin(1, TimeUnit.SECONDS);
    l.assertContract();
  }

  // ---- listeners and concurrency ----

  @Test
  void aListenerThatThrowsDoesNotBreakTheCall() {
    server.enqueue(OLLAMA_OK).delivery(Delivery.RANDOM_SPLITS);
    RecordingListener l = new RecordingListener().onEachEvent(e -> {
      throw new IllegalStateException("listener bug (expected by the test)");
    });
    LlmCall call = ollama().stream(OllamaClientTest.HI, l);
    assertThat(l.assertContract().completed().text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(call.result()).succeedsWithin(5, TimeUnit.SECONDS);
  }

  @Test
  void oneClientServesManyConcurrentStreams() {
    OpenAiClient client = openAi();
    List<RecordingListener> listeners = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      server.enqueue(OPENAI_OK).delivery(i % 2 == 0 ? Delivery.RANDOM_SPLITS : Delivery.WHOLE)
          .seed(i);
    }
    for (int i = 0; i < 40; i++) {
      RecordingListener l = new RecordingListener();
      listeners.add(l);
      client.stream(OpenAiClientTest.HI, l);
    }
    for (RecordingListener l : listeners) {
      assertThat(l.assertContract().completed().text()).isEqualTo("Grüße, 世界 🌍!");
    }
  }

  @Test
  void idleStreamsHoldNoThreads() {
    OpenAiClient client = openAi();
    List<LlmCall> calls = new ArrayList<>();
    List<RecordingListener> listeners = new ArrayList<>();
    int before = 0;
    for (int i = 0; i < 50; i++) {
      server.enqueue(OPENAI_FIRST_CHUNKS + OPENAI_OK).stallAfter(OPENAI_FIRST_CHUNKS.length());
      RecordingListener l = new RecordingListener();
      calls.add(client.stream(OpenAiClientTest.HI, l));
      listeners.add(l);
      l.awaitFirstEvent();
      if (i == 9) {
        before = clientThreads();
      }
    }
    int after = clientThreads();
    assertThat(after - before).as("threads added by 40 more idle streams").isLessThan(5);
    calls.forEach(LlmCall::cancel);
    for (RecordingListener l : listeners) {
      assertThat(l.assertContract().failed().kind()).isEqualTo(LlmException.Kind.CANCELLED);
    }
  }

  /** Live threads, not counting the test server's. */
  private static int clientThreads() {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // let finished workers park
    return (int) Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !t.getName().startsWith("test-server-"))
        .count();
  }

  @Test
  void invalidUtf8BytesBecomeReplacementCharacters() {
    byte[] body = ("data: {\"choices\":[{\"delta\":{\"content\":\"Hello\u00ff\"},"
        + "\"finish_reason\":\"stop\"}]}\n\n").getBytes(StandardCharsets.ISO_8859_1);
    server.enqueue(Reply.bytes(200, body)).delivery(Delivery.BYTE_BY_BYTE);
    RecordingListener l = new RecordingListener();
    openAi().stream(OpenAiClientTest.HI, l);
    assertThat(l.assertContract().completed().text()).isEqualTo("Hello\uFFFD");
  }
}
