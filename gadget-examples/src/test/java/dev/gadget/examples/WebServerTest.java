package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.server.SecretKeys;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.InMemoryChatStore;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The page's files and the REST API over real HTTP on 127.0.0.1. */
class WebServerTest {
  final HttpClient http = HttpClient.newHttpClient();
  final ChatStore store = new InMemoryChatStore();
  ServerApp app;
  Accounts.Issued ann;
  Accounts.Issued bob;
  ChatSession annSession;
  ChatSession bobSession;

  @BeforeEach
  void start() {
    app = ServerApp.builder().store(store).provider(PageFixture.SCRIPTED).port(0).start();
    ann = Accounts.create(store, "ann");
    bob = Accounts.create(store, "bob");
    annSession = session(ann, "Ann's chat");
    bobSession = session(bob, "Bob's chat");
    ChatTurn turn = ChatTurn.start(Ids.next(), annSession.id(), ann.user().id(), 0, "hi", null,
        Instant.now());
    store.createTurn(turn);
    store.appendBlock(turn.id(), new TurnBlock.Responding(0, Instant.now(), "Hello **Ann**"));
  }

  @AfterEach
  void stop() {
    app.close();
  }

  private ChatSession session(Accounts.Issued who, String name) {
    Project p = new Project(Ids.next(), who.user().id(), "P", "p", "/git/p", Instant.now());
    store.createProject(p);
    ChatSession s = new ChatSession(Ids.next(), who.user().id(), p.id(), name, null,
        Instant.now());
    store.createSession(s);
    return s;
  }

  HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + app.httpPort() + path));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode json(HttpResponse<String> r) throws Exception {
    assertThat(r.headers().firstValue("Content-Type")).contains("application/json; charset=utf-8");
    return GadgetJson.mapper().readTree(r.body());
  }

  @Test
  void servesThePageWithItsLibrariesAndASecurityPolicy() throws Exception {
    HttpResponse<String> page = get("/", null);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).contains("text/html; charset=utf-8");
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp ->
        assertThat(csp).contains("script-src 'self'", "img-src 'self' data:",
            "connect-src 'self' ws: wss:"));
    assertThat(page.body()).contains("app.js", "vendor/dompurify/dist/purify.min.js");
    for (String lib : new String[] {"/app.js", "/app.css",
        "/vendor/socket.io-client/dist/socket.io.min.js", "/vendor/marked/lib/marked.umd.js",
        "/vendor/dompurify/dist/purify.min.js"}) {
      HttpResponse<String> r = get(lib, null);
      assertThat(r.statusCode()).as(lib).isEqualTo(200);
      assertThat(r.body()).as(lib).isNotBlank();
      assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
    }
    assertThat(get("/vendor/marked/lib/marked.umd.js", null).body()).contains("marked v18.2.1");
  }

  @Test
  void refusesPathsOutsideTheWebFiles() throws Exception {
    for (String path : new String[] {"/../simplelogger.properties", "/%2e%2e/pom.xml",
        "/simplelogger.properties", "/dev/gadget/examples/Main.class", "/vendor/",
        "/nothing.js", "/vendor/marked/LICENSE.md"}) {
      assertThat(get(path, null).statusCode()).as(path).isEqualTo(404);
    }
  }

  @Test
  void healthAndConfigNeedNoToken() throws Exception {
    HttpResponse<String> health = get("/api/health", null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(json(health).get("status").asText()).isEqualTo("ok");
    JsonNode config = json(get("/api/config", null));
    assertThat(config.get("socketPort").asInt()).as("one port serves the page and Socket.IO")
        .isEqualTo(app.httpPort());
    assertThat(config.get("scripted").asBoolean()).isTrue();
    assertThat(config.get("llm").get("sdk").asText()).isEqualTo("scripted");
    assertThat(config.toString()).doesNotContain("sk-test-secret");
  }

  @Test
  void theRestNeedsAUserToken() throws Exception {
    HttpResponse<String> none = get("/api/sessions", null);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).contains("Bearer");
    assertThat(json(none).get("error").asText()).startsWith("missing token");
    assertThat(get("/api/sessions", "gdt_nope").statusCode()).isEqualTo(401);
    HttpResponse<String> drone = get("/api/me", ann.droneToken());
    assertThat(drone.statusCode()).as("a drone token cannot read the API").isEqualTo(401);
    assertThat(json(drone).get("error").asText()).startsWith("this is a drone token")
        .contains("java -jar gadget.jar drone");
    assertThat(json(get("/api/me", ann.pageToken())).get("user").get("username").asText())
        .isEqualTo("ann");
  }

  @Test
  void aUserSeesOnlyTheirOwnSessionsAndTurns() throws Exception {
    JsonNode sessions = json(get("/api/sessions", ann.pageToken())).get("sessions");
    assertThat(sessions).hasSize(1);
    assertThat(sessions.get(0).get("_id").asText()).isEqualTo(annSession.id());
    assertThat(json(get("/api/sessions?projectId=" + annSession.projectId(), ann.pageToken()))
        .get("sessions")).hasSize(1);
    assertThat(json(get("/api/sessions?projectId=" + bobSession.projectId(), ann.pageToken()))
        .get("sessions")).isEmpty();

    JsonNode turns = json(get("/api/sessions/" + annSession.id() + "/turns", ann.pageToken()))
        .get("turns");
    assertThat(turns).hasSize(1);
    assertThat(turns.get(0).get("blocks").get(0).get("content").asText())
        .isEqualTo("Hello **Ann**");

    HttpResponse<String> other = get("/api/sessions/" + bobSession.id() + "/turns",
        ann.pageToken());
    assertThat(other.statusCode()).isEqualTo(404);
    assertThat(json(other).get("error").asText()).isEqualTo("chat session not found");
    assertThat(get("/api/sessions/not-an-id/turns", ann.pageToken()).statusCode())
        .isEqualTo(404);
    assertThat(get("/api/nothing", ann.pageToken()).statusCode()).isEqualTo(404);
  }

  @Test
  void providersAndUsageAreEachUsersOwnAndNeverShowAKey() throws Exception {
    SecretKeys keys = SecretKeys.of(new byte[32]);
    String sealed = keys.seal("sk-ann-very-secret", "ctx");
    store.providers().saveProvider(new ModelProvider(Ids.next(), ann.user().id(), "Ann's",
        "openai", "http://127.0.0.1:9/v1", sealed, Instant.now()));
    store.providers().addUsage(UsageTotal.ofTurn(ann.user().id(),
        new TurnModel("default", "Server default", "m"), new TurnStats(7, 3, 1, 0, 1, 20),
        false));
    HttpResponse<String> providers = get("/api/providers", ann.pageToken());
    assertThat(providers.statusCode()).isEqualTo(200);
    assertThat(providers.body()).contains("\"name\":\"Ann's\"", "\"apiKeySet\":true")
        .doesNotContain("sk-ann", sealed, "gk1:");
    assertThat(json(get("/api/providers", bob.pageToken())).get("providers")).isEmpty();
    JsonNode usage = json(get("/api/usage", ann.pageToken()));
    assertThat(usage.get("total").get("promptTokens").asLong()).isEqualTo(7);
    assertThat(usage.get("byModel").get(0).get("modelId").asText()).isEqualTo("m");
    assertThat(json(get("/api/usage", bob.pageToken())).get("total").get("turns").asLong())
        .isZero();
    assertThat(get("/api/usage", null).statusCode()).isEqualTo(401);
  }

  @Test
  void onlyGetIsAllowedOnTheApi() throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + app.httpPort() + "/api/sessions"))
        .header("Authorization", "Bearer " + ann.pageToken())
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow")).contains("GET");
  }

  @Test
  void anUnreachableStoreIsA503AndTheServerGoesOn() throws Exception {
    app.close();
    ChatStore broken = (ChatStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {ChatStore.class}, (proxy, method, args) -> switch (method.getName()) {
          case "listUnfinishedTurns" -> java.util.List.of();
          case "findTokenByHash" -> store.findTokenByHash((String) args[0]);
          case "toString" -> "a store that cannot be reached";
          case "hashCode" -> 0;
          case "equals" -> proxy == args[0];
          default -> throw new StoreException(StoreException.Reason.UNAVAILABLE,
              "no route to the database", null);
        });
    app = ServerApp.builder().store(broken).provider(PageFixture.SCRIPTED).port(0).start();
    HttpResponse<String> health = get("/api/health", null);
    assertThat(health.statusCode()).isEqualTo(503);
    // unauthenticated: says what is wrong, never where the database is or what it said
    assertThat(json(health).get("error").asText())
        .isEqualTo("the server cannot reach its store");
    HttpResponse<String> sessions = get("/api/sessions", ann.pageToken());
    assertThat(sessions.statusCode()).isEqualTo(503);
    assertThat(json(sessions).get("error").asText())
        .startsWith("the server cannot reach its store");
    assertThat(get("/app.js", null).statusCode()).isEqualTo(200);
  }

  @Test
  void queryStringsAreDecoded() {
    Map<String, String> q = WebServer.query(URI.create("http://x/a?projectId=a%20b&x&projectId=c"));
    assertThat(q).containsEntry("projectId", "a b").containsEntry("x", "");
  }
}
