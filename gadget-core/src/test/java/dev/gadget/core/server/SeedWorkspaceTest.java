package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Seeds 000/001's workspace contract over the runtime (server, drone, page on the in-memory
 * transport, real git): the drone's state on request, the {@code .gadget/} files, crash
 * recovery's delay, the stats as the turn goes (the workspace mode: {@link WorkspaceModeTest}).
 */
class SeedWorkspaceTest extends RuntimeTestBase {

  private static ScriptedLlmClient.Reply answer(String text) {
    return ScriptedLlmClient.reply().thinking("Now I know.").text(text).build();
  }

  private static String submit(Page page, String sessionId, String prompt) throws Exception {
    return page.submit(sessionId, prompt);
  }

  private record Chat(Page page, String session, String droneId) {}

  /** A page of {@code who}'s watching a new chat on the sample project; their drone registered. */
  private Chat chat(Person who) throws Exception {
    Page page = fx.page(who.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone registered", () -> !fx.store.listDrones(who.user().id()).isEmpty());
    return new Chat(page, session, fx.store.listDrones(who.user().id()).get(0).id());
  }

  /** Structure of {@code json}: each field's path and JSON type, arrays by their first item. */
  static java.util.SortedMap<String, String> shape(JsonNode json, String at,
      java.util.SortedMap<String, String> out) {
    if (json.isObject()) {
      json.fields().forEachRemaining(f -> shape(f.getValue(), at + "." + f.getKey(), out));
    } else if (json.isArray()) {
      out.put(at, "array");
      if (json.size() > 0) {
        shape(json.get(0), at + "[]", out);
      }
    } else {
      out.put(at, json.getNodeType().name().toLowerCase());
    }
    return out;
  }

  private static JsonNode file(Path ws) {
    try {
      return dev.gadget.core.GadgetJson.mapper()
          .readTree(ws.resolve(".gadget/workspace.json").toFile());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A new commit on the sample project's remote. */
  private void pushToOrigin(String file) throws Exception {
    Path work = tmp.resolve("seed-work");
    java.nio.file.Files.writeString(work.resolve(file), file + "\n");
    RuntimeFixture.git(work, "add", file);
    RuntimeFixture.git(work, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit",
        "-q", "-m", file);
    RuntimeFixture.git(work, "push", "-q", tmp.resolve("origin.git").toString(), "main");
  }

  @Test
  void workspaceJsonFollowsSeed001FieldForFieldThroughLockCloneFetchReleaseAndRemoval()
      throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    Path ws = tmp.resolve("ws");
    ScriptedLlmClient llm = ScriptedLlmClient.of(answer("one"), answer("two"), answer("three"));
    GadgetDrone drone = fx.drone(ada, ws, llm);
    Chat chat = chat(ada);
    Page page = chat.page();
    String session = chat.session();
    String droneId = chat.droneId();
    // the server's registration id, written once the drone is connected
    await("registration id", () -> droneId.equals(file(ws).path("registration").path("_id")
        .asText()));
    assertThat(file(ws).get("registration").get("status").asText()).isEqualTo("available");

    assertThat(page.request(Protocol.REQUEST_SESSION_LOCK, Map.of("sessionId", session))
        .get("ok").asBoolean()).isTrue();
    String first = submit(page, session, "one");
    assertThat(page.completion(first).get("status").asText()).isEqualTo("finished");
    await("status back to available", () -> file(ws).get("registration").get("status")
        .asText().equals("available"));

    JsonNode seed = dev.gadget.core.GadgetJson.mapper().readTree(
        getClass().getResource("/seeds/001-workspace-example.json"));
    JsonNode ours = file(ws);
    java.util.SortedMap<String, String> expected = shape(seed, "", new java.util.TreeMap<>());
    // mode is Gadget's one addition: the user's mode survives a restart (docs/SEEDS.md)
    expected.put(".mode", "string");
    assertThat(shape(ours, "", new java.util.TreeMap<>())).isEqualTo(expected);
    assertThat(ours.get("chatSession").get("_id").asText()).isEqualTo(session);
    assertThat(ours.get("chatSession").get("name").asText()).isEqualTo("Chat");
    assertThat(ours.get("lockedProject").get("slug").asText()).isEqualTo("sample");
    JsonNode project = ours.get("projects").get(0);
    assertThat(project.get("_id").asText())
        .isEqualTo(ours.get("lockedProject").get("_id").asText());
    java.time.Instant cloned = java.time.Instant.parse(project.get("clonedAt").asText());
    java.time.Instant synced = java.time.Instant.parse(project.get("lastSyncAt").asText());
    assertThat(synced).isEqualTo(cloned);

    // a fetch that brings new commits fast-forwards the tree: lastSyncAt moves
    pushToOrigin("second.txt");
    String second = submit(page, session, "two");
    assertThat(page.completion(second).get("status").asText()).isEqualTo("finished");
    assertThat(ws.resolve("sample/second.txt")).exists();
    JsonNode afterSync = file(ws).get("projects").get(0);
    java.time.Instant synced2 = java.time.Instant.parse(afterSync.get("lastSyncAt").asText());
    assertThat(synced2).isAfter(synced);
    assertThat(afterSync.get("clonedAt").asText()).isEqualTo(project.get("clonedAt").asText());

    // a local commit: the fetch cannot bring the tree to the remote's, lastSyncAt stays
    java.nio.file.Files.writeString(ws.resolve("sample/local.txt"), "mine\n");
    RuntimeFixture.git(ws.resolve("sample"), "add", "local.txt");
    RuntimeFixture.git(ws.resolve("sample"), "-c", "user.email=t@example.com", "-c",
        "user.name=T", "commit", "-q", "-m", "local");
    pushToOrigin("third.txt");
    String third = submit(page, session, "three");
    assertThat(page.completion(third).get("status").asText()).isEqualTo("finished");
    assertThat(ws.resolve("sample/third.txt")).doesNotExist();
    assertThat(file(ws).get("projects").get(0).get("lastSyncAt").asText())
        .isEqualTo(afterSync.get("lastSyncAt").asText());

    // release: both locks cleared
    assertThat(page.request(Protocol.RELEASE_SESSION_LOCK, Map.of("droneId", droneId))
        .get("ok").asBoolean()).isTrue();
    assertThat(file(ws).get("chatSession").isNull()).isTrue();
    assertThat(file(ws).get("lockedProject").isNull()).isTrue();

    // the project's checkout removed: its entry goes
    deleteTree(ws.resolve("sample"));
    JsonNode state = page.request(Protocol.GET_WORKSPACE_STATE, Map.of("droneId", droneId));
    assertThat(state.get("state").get("workspace").get("projects")).isEmpty();
    assertThat(file(ws).get("projects")).isEmpty();
    assertThat(drone.workspace().data().projects()).isEmpty();
  }

  private static void deleteTree(Path dir) throws Exception {
    try (var paths = java.nio.file.Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(java.util.Comparator.reverseOrder())::iterator) {
        java.nio.file.Files.delete(p);
      }
    }
  }

  @Test
  void aDroneWritesStartingBeforeItConnects() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    Path ws = tmp.resolve("ws");
    java.util.concurrent.CountDownLatch refused = new java.util.concurrent.CountDownLatch(1);
    GadgetDrone d = GadgetDrone.builder().transport(fx.transport.client())
        .token("gdt_not-a-token").workspaceDir(ws).llmClients(p -> ScriptedLlmClient.of())
        .listener(new dev.gadget.core.drone.DroneListener() {
          @Override
          public void onRefused(String message) {
            refused.countDown();
          }
        }).build();
    fx.closeables.add(d);
    d.start();
    assertThat(refused.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    JsonNode registration = file(ws).get("registration");
    assertThat(registration.get("status").asText()).isEqualTo("starting");
    assertThat(registration.get("_id").isNull()).isTrue();
  }

  @Test
  void aStateRequestReturnsTheDronesProjectsLocksAndCachedTurn() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    Person bob = fx.person("bob");
    Path ws = tmp.resolve("ws");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("word ".repeat(400)).build())
        .tokenDelay(java.time.Duration.ofMillis(10)).build();
    GadgetDrone drone = fx.drone(ada, ws, llm);
    Chat chat = chat(ada);
    Page page = chat.page();
    String session = chat.session();
    String droneId = chat.droneId();
    assertThat(page.request(Protocol.REQUEST_SESSION_LOCK, Map.of("sessionId", session))
        .get("ok").asBoolean()).isTrue();
    String turn = submit(page, session, "talk");
    await("streaming", () -> page.eventsOf(turn).stream()
        .filter(e -> e.name().equals(Protocol.RESPONSE)).count() > 5);

    // the server's work order names the drone's workspace (seed 001, processWorkOrder)
    assertThat(dev.gadget.core.GadgetJson.mapper().readTree(
        ws.resolve(".gadget/work-order.json").toFile()).get("workOrder").get("workspaceId")
        .asText()).isEqualTo(drone.workspaceId());
    JsonNode state = page.request(Protocol.GET_WORKSPACE_STATE, Map.of("droneId", droneId))
        .get("state");
    assertThat(state.get("mode").asText()).isEqualTo("agent");
    assertThat(state.get("status").asText()).isEqualTo("busy");
    assertThat(state.get("activeTurnId").asText()).isEqualTo(turn);
    JsonNode cached = state.get("cachedTurn");
    assertThat(cached.get("turnId").asText()).isEqualTo(turn);
    assertThat(cached.get("chatSessionId").asText()).isEqualTo(session);
    assertThat(cached.get("status").asText()).isEqualTo("processing");
    JsonNode w = state.get("workspace");
    assertThat(w.get("workspaceId").asText()).isEqualTo(drone.workspaceId());
    assertThat(w.get("chatSession").get("_id").asText()).isEqualTo(session);
    assertThat(w.get("lockedProject").get("slug").asText()).isEqualTo("sample");
    assertThat(w.get("projects").get(0).get("slug").asText()).isEqualTo("sample");
    assertThat(w.get("projects").get(0).get("clonedAt").asText()).isNotBlank();
    assertThat(w.get("projects").get(0).get("lastSyncAt").asText()).isNotBlank();
    assertThat(w.get("registration").get("_id").asText()).isEqualTo(droneId);
    assertThat(state.toString()).doesNotContain(RuntimeFixture.API_KEY);

    // nobody else's drone, and an unknown one, is "not connected"
    Page bobs = fx.page(bob.pageToken()).connected();
    assertThat(bobs.request(Protocol.GET_WORKSPACE_STATE, Map.of("droneId", droneId))
        .get("error").asText()).isEqualTo("that drone is not connected");
    page.completion(turn);
    JsonNode idle = page.request(Protocol.GET_WORKSPACE_STATE, Map.of("droneId", droneId))
        .get("state");
    await("cache gone", () -> !java.nio.file.Files.exists(ws.resolve(".gadget/work-order.json")));
    idle = page.request(Protocol.GET_WORKSPACE_STATE, Map.of("droneId", droneId)).get("state");
    assertThat(idle.get("mode").asText()).isEqualTo("idle");
    assertThat(idle.has("cachedTurn") && !idle.get("cachedTurn").isNull()).isFalse();
  }

  /** A clock that stands still until the test moves it; counts the drone timer's reads. */
  static final class TestClock extends java.time.Clock {
    volatile java.time.Instant now = java.time.Instant.parse("2026-04-29T19:30:00Z");
    final java.util.concurrent.atomic.AtomicLong timerReads =
        new java.util.concurrent.atomic.AtomicLong();

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public java.time.Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public java.time.Instant instant() {
      if (Thread.currentThread().getName().equals("gadget-drone-timer")) {
        timerReads.incrementAndGet();
      }
      return now;
    }

    void advance(long millis) {
      now = now.plusMillis(millis);
    }
  }

  @Test
  void aCrashRecoveryWithARetryDelayWaitsThatLongOnTheDronesClockAndTheTurnSaysSo()
      throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b.crashRetryDelay(java.time.Duration.ofSeconds(5))
        .droneGracePeriod(java.time.Duration.ofSeconds(20))
        .silenceTimeout(java.time.Duration.ofSeconds(30)));
    Person ada = fx.person("ada");
    Path ws = tmp.resolve("ws");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("word ".repeat(1000)).build())
        .reply(ScriptedLlmClient.reply().text("Redone.").build())
        .tokenDelay(java.time.Duration.ofMillis(5)).build();
    GadgetDrone first = fx.drone(ada, ws, llm);
    Chat chat = chat(ada);
    Page page = chat.page();
    String session = chat.session();
    String turn = submit(page, session, "talk");
    await("streaming", () -> page.eventsOf(turn).stream()
        .filter(e -> e.name().equals(Protocol.RESPONSE)).count() > 10);
    first.abandon();

    TestClock clock = new TestClock();
    GadgetDrone again = GadgetDrone.builder().transport(fx.transport.client())
        .token(ada.droneToken()).workspaceDir(ws).hostname("test-host").llmClients(p -> llm)
        .heartbeatInterval(java.time.Duration.ofMillis(100))
        .ackTimeout(java.time.Duration.ofSeconds(2)).clock(clock).build();
    fx.closeables.add(again);
    again.start();
    await("turnRecovered", () -> page.eventsOf(turn).stream()
        .anyMatch(e -> e.name().equals(Protocol.TURN_RECOVERED)));
    JsonNode recovered = page.eventsOf(turn).stream()
        .filter(e -> e.name().equals(Protocol.TURN_RECOVERED)).findFirst().orElseThrow()
        .payload();
    assertThat(recovered.get("message").asText())
        .isEqualTo("Drone crashed during processing - retrying in 5 s");
    assertThat(recovered.get("retryDelay").asLong()).isEqualTo(5000);
    assertThat(recovered.get("crashRetries").asInt()).isEqualTo(1);

    // the drone's wait has begun once its timer reads the clock (nothing else on that thread
    // reads it while the drone waits for recovery)
    await("the drone waits", () -> clock.timerReads.get() > 0);
    // 1 ms short of the delay, however often the drone looks, it does not retry
    clock.advance(4_999);
    long reads = clock.timerReads.get();
    await("the drone looked at its clock", () -> clock.timerReads.get() > reads + 3);
    assertThat(llm.requests()).hasSize(1);
    clock.advance(1);
    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("finished");
    assertThat(llm.requests()).hasSize(2);
    assertThat(done.get("stats").get("crashRetries").asInt()).isEqualTo(1);
    assertThat(fx.store.findTurn(turn).orElseThrow().stats().crashRetries()).isEqualTo(1);
  }

  /** An Ollama-like server answering each chat with the next queued NDJSON body. */
  static final class OllamaReplay implements AutoCloseable {
    final com.sun.net.httpserver.HttpServer http;
    final java.util.concurrent.BlockingQueue<String> bodies =
        new java.util.concurrent.LinkedBlockingQueue<>();

    OllamaReplay() throws java.io.IOException {
      http = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress(
          java.net.InetAddress.getLoopbackAddress(), 0), 0);
      http.createContext("/", ex -> {
        ex.getRequestBody().readAllBytes();
        // Ollama's model card (the client asks it once for the context window): none said
        String body = ex.getRequestURI().getPath().equals("/api/show") ? "{}" : bodies.poll();
        byte[] bytes = (body == null ? "" : body).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/x-ndjson");
        ex.sendResponseHeaders(body == null ? 500 : 200, body == null ? -1 : bytes.length);
        if (body != null) {
          ex.getResponseBody().write(bytes);
        }
        ex.close();
      });
      http.start();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    @Override
    public void close() {
      http.stop(0);
    }
  }

  private static String ollamaRound(String message, long loadMs, long promptEvalMs, long evalMs,
      int evalCount) {
    return "{\"model\":\"qwen3:8b\",\"created_at\":\"2025-06-01T10:00:01Z\",\"message\":"
        + message + ",\"done\":false}\n"
        + "{\"model\":\"qwen3:8b\",\"created_at\":\"2025-06-01T10:00:02Z\",\"message\":"
        + "{\"role\":\"assistant\",\"content\":\"\"},\"done_reason\":\"stop\",\"done\":true,"
        + "\"total_duration\":" + (loadMs + promptEvalMs + evalMs) * 1_000_000
        + ",\"load_duration\":" + loadMs * 1_000_000
        + ",\"prompt_eval_count\":80,\"prompt_eval_duration\":" + promptEvalMs * 1_000_000
        + ",\"eval_count\":" + evalCount + ",\"eval_duration\":" + evalMs * 1_000_000 + "}\n";
  }

  @Test
  void statsComeDuringTheTurnWithOllamasDurationsAndEachToolsDuration() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    try (OllamaReplay ollama = new OllamaReplay()) {
      ollama.bodies.add(
          "{\"model\":\"qwen3:8b\",\"created_at\":\"2025-06-01T10:00:01Z\",\"message\":"
          + "{\"role\":\"assistant\",\"content\":\"Reading.\"},\"done\":false}\n"
          + ollamaRound("{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":"
              + "{\"name\":\"read_file\",\"arguments\":{\"path\":\"README.md\"}}}]}",
              250, 100, 400, 20));
      ollama.bodies.add(ollamaRound("{\"role\":\"assistant\",\"content\":\"Done.\"}",
          50, 30, 300, 5));
      dev.gadget.core.llm.OllamaClient llm =
          dev.gadget.core.llm.OllamaClient.builder().baseUrl(ollama.baseUrl()).build();
      fx.drone(ada, tmp.resolve("ws"), llm);
      Chat chat = chat(ada);
      Page page = chat.page();
      String session = chat.session();
      String turn = submit(page, session, "read it");
      JsonNode done = page.completion(turn);
      assertThat(done.get("status").asText()).as("%s", done).isEqualTo("finished");

      List<JsonNode> live = page.eventsOf(turn).stream()
          .filter(e -> e.name().equals(Protocol.TURN_STATS)).map(e -> e.payload().get("stats"))
          .toList();
      // after the first model round, after the tool, after the second round
      assertThat(live).hasSize(3);
      assertThat(live.get(0).get("llmCalls").asInt()).isEqualTo(1);
      assertThat(live.get(0).get("completionTokens").asLong()).isEqualTo(20);
      assertThat(live.get(0).get("loadDurationMs").asLong()).isEqualTo(250);
      assertThat(live.get(0).get("evalDurationMs").asLong()).isEqualTo(400);
      assertThat(live.get(0).has("toolDurations")).isFalse();
      assertThat(live.get(1).get("toolDurations").get(0).get("name").asText())
          .isEqualTo("read_file");
      assertThat(live.get(1).get("toolDurations").get(0).get("durationMs").asLong())
          .isNotNegative();
      assertThat(live.get(2).get("llmCalls").asInt()).isEqualTo(2);

      JsonNode stats = done.get("stats");
      assertThat(stats.get("loadDurationMs").asLong()).isEqualTo(300);
      assertThat(stats.get("promptEvalDurationMs").asLong()).isEqualTo(130);
      assertThat(stats.get("evalDurationMs").asLong()).isEqualTo(700);
      assertThat(stats.get("completionTokens").asLong()).isEqualTo(25);
      assertThat(stats.get("toolDurations")).hasSize(1);
      dev.gadget.core.model.TurnStats stored = fx.store.findTurn(turn).orElseThrow().stats();
      assertThat(stored.evalDurationMs()).isEqualTo(700);
      assertThat(stored.toolDurations()).extracting(d -> d.name()).containsExactly("read_file");

      // seed 003: each streamed chunk carries the count so far
      List<Long> counts = page.eventsOf(turn).stream()
          .filter(e -> e.name().equals(Protocol.RESPONSE))
          .map(e -> e.payload().get("tokens").asLong()).toList();
      assertThat(counts).containsExactly(1L, 2L);
    }
  }
}
