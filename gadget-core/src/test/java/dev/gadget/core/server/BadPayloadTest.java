package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.JavaWords;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.core.transport.TransportException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every page → server event given wrong types, nulls, missing fields, enum ordinals and values
 * over the limits, on the real server over the in-memory transport with a drone that would run a
 * prompt: each is answered, the answer names the field in people's words without Jackson's or
 * Java's, nothing is stored, and the same connection goes on working.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BadPayloadTest {
  static final Pattern INTERNALS = JavaWords.PATTERN;
  static final JsonNodeFactory JSON = GadgetJson.mapper().getNodeFactory();

  RuntimeFixture fx;
  Person ada;
  Page page;
  String projectId;
  String sessionId;
  String droneId;

  @BeforeAll
  void start(@TempDir Path tmp) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    ada = fx.person("ada");
    fx.drone(ada, tmp.resolve("ws"), ScriptedLlmClient.builder()
        .script(r -> ScriptedLlmClient.reply().text("done").build()).build());
    page = fx.page(ada.pageToken()).connected();
    RuntimeFixture.await("the drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    // the drone writes its registration once the server has told it (droneRegistration)
    RuntimeFixture.await("the registration written", () -> {
      try {
        return RuntimeFixture.gadgetFiles(tmp.resolve("ws")).contains(droneId);
      } catch (java.io.IOException e) {
        return false;
      }
    });
    projectId = page.request(Protocol.CREATE_PROJECT, obj("name", "Sample", "slug", "sample",
        "gitUrl", fx.gitUrl)).get("project").get("_id").asText();
    sessionId = page.request(Protocol.CREATE_SESSION, obj("projectId", projectId))
        .get("session").get("_id").asText();
  }

  @AfterAll
  void stop() {
    if (fx != null) {
      fx.close();
    }
  }

  /** A JSON object from name, value pairs; a value may be null, a String, a Number, ... */
  static ObjectNode obj(Object... pairs) {
    ObjectNode o = JSON.objectNode();
    for (int i = 0; i < pairs.length; i += 2) {
      o.set((String) pairs[i], GadgetJson.mapper().valueToTree(pairs[i + 1]));
    }
    return o;
  }

  static String chars(int n) {
    return "a".repeat(n);
  }

  private static Arguments bad(String event, String field, Supplier<List<JsonNode>> args,
      String what) {
    return Arguments.of(event, what, field, args);
  }

  private Arguments bad(String event, String field, String what, Supplier<ObjectNode> payload) {
    return bad(event, field, () -> List.of(payload.get()), what);
  }

  Stream<Arguments> cases() {
    List<Arguments> c = new ArrayList<>();
    for (String event : List.of(Protocol.LIST_PROJECTS, Protocol.CREATE_PROJECT,
        Protocol.LIST_SESSIONS, Protocol.CREATE_SESSION, Protocol.LIST_DRONES,
        Protocol.WATCH_SESSION, Protocol.UNWATCH_SESSION, Protocol.SUBMIT_PROMPT,
        Protocol.CANCEL_TURN, Protocol.REQUEST_SESSION_LOCK, Protocol.REQUEST_WORKSPACE_MODE)) {
      c.add(bad(event, "JSON object", List::of, "no argument"));
      c.add(bad(event, "JSON object", () -> List.of(JSON.textNode("x")), "a string"));
      c.add(bad(event, "JSON object", () -> List.of(JSON.arrayNode().add(1)), "a list"));
      c.add(bad(event, "JSON object", () -> List.of(JSON.numberNode(7)), "a number"));
    }
    String git = fx.gitUrl;
    c.add(bad(Protocol.CREATE_PROJECT, "name", "{}", () -> obj()));
    c.add(bad(Protocol.CREATE_PROJECT, "name", "name null",
        () -> obj("name", null, "slug", "s1", "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "name", "name a number",
        () -> obj("name", 42, "slug", "s2", "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "name", "name true",
        () -> obj("name", true, "slug", "s3", "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "name", "name an object",
        () -> obj("name", obj("a", 1), "slug", "s4", "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "name", "name 201 characters",
        () -> obj("name", chars(201), "slug", "s5", "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "slug", "slug a number",
        () -> obj("name", "n", "slug", 7, "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "slug", "slug missing",
        () -> obj("name", "n", "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "slug", "slug 100,000 characters",
        () -> obj("name", "n", "slug", chars(100_000), "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "slug", "slug with a space",
        () -> obj("name", "n", "slug", "a b", "gitUrl", git)));
    c.add(bad(Protocol.CREATE_PROJECT, "gitUrl", "gitUrl false",
        () -> obj("name", "n", "slug", "s6", "gitUrl", false)));
    c.add(bad(Protocol.CREATE_PROJECT, "gitUrl", "gitUrl 2,001 characters",
        () -> obj("name", "n", "slug", "s7", "gitUrl", "https://x/" + chars(1991))));
    c.add(bad(Protocol.LIST_SESSIONS, "projectId", "projectId a number",
        () -> obj("projectId", 5)));
    c.add(bad(Protocol.LIST_SESSIONS, "projectId", "projectId 101 characters",
        () -> obj("projectId", chars(101))));
    c.add(bad(Protocol.CREATE_SESSION, "projectId", "{}", () -> obj()));
    c.add(bad(Protocol.CREATE_SESSION, "projectId", "projectId null",
        () -> obj("projectId", null)));
    c.add(bad(Protocol.CREATE_SESSION, "projectId", "projectId a number",
        () -> obj("projectId", 1)));
    c.add(bad(Protocol.CREATE_SESSION, "name", "name a number",
        () -> obj("projectId", projectId, "name", 12)));
    c.add(bad(Protocol.CREATE_SESSION, "name", "name 201 characters",
        () -> obj("projectId", projectId, "name", chars(201))));
    for (String event : List.of(Protocol.WATCH_SESSION, Protocol.UNWATCH_SESSION)) {
      c.add(bad(event, "sessionId", "{}", () -> obj()));
      c.add(bad(event, "sessionId", "sessionId null", () -> obj("sessionId", null)));
      c.add(bad(event, "sessionId", "sessionId a number", () -> obj("sessionId", 42)));
      c.add(bad(event, "sessionId", "sessionId a list",
          () -> obj("sessionId", List.of(sessionId))));
      c.add(bad(event, "sessionId", "sessionId 101 characters",
          () -> obj("sessionId", chars(101))));
    }
    c.add(bad(Protocol.SUBMIT_PROMPT, "sessionId", "sessionId missing",
        () -> obj("prompt", "hello")));
    c.add(bad(Protocol.SUBMIT_PROMPT, "sessionId", "sessionId a number",
        () -> obj("sessionId", 42, "prompt", "hello")));
    c.add(bad(Protocol.SUBMIT_PROMPT, "prompt", "prompt missing",
        () -> obj("sessionId", sessionId)));
    c.add(bad(Protocol.SUBMIT_PROMPT, "prompt", "prompt null",
        () -> obj("sessionId", sessionId, "prompt", null)));
    c.add(bad(Protocol.SUBMIT_PROMPT, "prompt", "prompt a number",
        () -> obj("sessionId", sessionId, "prompt", 5)));
    c.add(bad(Protocol.SUBMIT_PROMPT, "prompt", "prompt a list",
        () -> obj("sessionId", sessionId, "prompt", List.of("a"))));
    c.add(bad(Protocol.SUBMIT_PROMPT, "prompt", "prompt 100,001 characters",
        () -> obj("sessionId", sessionId, "prompt", chars(100_001))));
    c.add(bad(Protocol.SUBMIT_PROMPT, "mode", "mode a number",
        () -> obj("sessionId", sessionId, "prompt", "hello", "mode", 3)));
    c.add(bad(Protocol.SUBMIT_PROMPT, "mode", "mode 101 characters",
        () -> obj("sessionId", sessionId, "prompt", "hello", "mode", chars(101))));
    c.add(bad(Protocol.CANCEL_TURN, "turnId", "{}", () -> obj()));
    c.add(bad(Protocol.CANCEL_TURN, "turnId", "turnId null", () -> obj("turnId", null)));
    c.add(bad(Protocol.CANCEL_TURN, "turnId", "turnId a number", () -> obj("turnId", 1)));
    c.add(bad(Protocol.REQUEST_SESSION_LOCK, "sessionId", "{}", () -> obj()));
    c.add(bad(Protocol.REQUEST_SESSION_LOCK, "sessionId", "sessionId a number",
        () -> obj("sessionId", 1)));
    c.add(bad(Protocol.REQUEST_SESSION_LOCK, "droneId", "droneId a number",
        () -> obj("sessionId", sessionId, "droneId", 5)));
    c.add(bad(Protocol.REQUEST_WORKSPACE_MODE, "mode", "mode true",
        () -> obj("droneId", droneId, "mode", true)));
    c.add(bad(Protocol.REQUEST_WORKSPACE_MODE, "mode", "mode the ordinal 1",
        () -> obj("droneId", droneId, "mode", 1)));
    c.add(bad(Protocol.REQUEST_WORKSPACE_MODE, "mode", "mode the ordinal 0",
        () -> obj("droneId", droneId, "mode", 0)));
    c.add(bad(Protocol.REQUEST_WORKSPACE_MODE, "mode", "mode unknown",
        () -> obj("droneId", droneId, "mode", "sleepy")));
    c.add(bad(Protocol.REQUEST_WORKSPACE_MODE, "mode", "mode missing",
        () -> obj("droneId", droneId)));
    c.add(bad(Protocol.REQUEST_WORKSPACE_MODE, "droneId", "droneId missing",
        () -> obj("mode", "user")));
    c.add(bad(Protocol.REQUEST_WORKSPACE_MODE, "droneId", "droneId a number",
        () -> obj("droneId", 5, "mode", "user")));
    return c.stream();
  }

  /** What the store holds for ada, and what her drone's workspace says. */
  private String stored() throws Exception {
    String user = ada.user().id();
    return fx.store.listProjects(user) + "\n" + fx.store.listSessions(user, null) + "\n"
        + fx.store.listTurns(sessionId) + "\n" + RuntimeFixture.gadgetFiles(fx.root.resolve("ws"))
        .replaceAll("\"lastSyncAt\"\\s*:\\s*\"[^\"]*\"", "")
        // drone.log's lines say what the drone did (a turn's status), not what it stored
        .replaceAll("\\d{4}-\\d\\d-\\d\\dT\\S+ (INFO|WARN|ERROR) [^\\n]*\\n", "");
  }

  @Order(1)
  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("cases")
  void aBadPayloadIsAnsweredWithTheFieldAndNothingIsStored(String event, String what,
      String field, Supplier<List<JsonNode>> args) throws Exception {
    String before = stored();

    JsonNode answer = page.connection.emitWithAck(event, args.get(), RuntimeFixture.WAIT)
        .get(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS).get(0);

    String error = answer.path("error").asText("");
    assertThat(error).as("the answer to %s (%s): %s", event, what, answer)
        .startsWith("bad " + event + " payload: ");
    assertThat(error).contains(field.equals("JSON object") ? field : "\"" + field + "\"");
    assertThat(error).doesNotContainPattern(INTERNALS);
    assertThat(error.length()).as("a short answer").isLessThan(300);
    assertThat(stored()).as("nothing stored").isEqualTo(before);
    assertThat(page.request(Protocol.LIST_PROJECTS, obj()).get("projects")).hasSize(1);
  }

  @Order(1)
  @ParameterizedTest(name = "drone auth: {0}")
  @MethodSource("droneAuths")
  void aDroneWithABadAuthPayloadIsRefusedWithTheField(String what, ObjectNode auth,
      String message) throws Exception {
    auth.put("token", ada.droneToken());
    TransportClient raw = fx.transport.client();
    BlockingQueue<String> result = new LinkedBlockingQueue<>();
    try {
      raw.connect(Protocol.DRONE_NAMESPACE, () -> auth, new TransportClient.ClientListener() {
        @Override
        public void onConnect(Connection c) {
          result.add("connected");
        }

        @Override
        public void onConnectError(Connection c, TransportException e) {
          result.add(e.getMessage());
        }
      });
      assertThat(result.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .isEqualTo(message);
    } finally {
      raw.close();
    }
    assertThat(fx.store.listDrones(ada.user().id())).hasSize(1);
  }

  static Stream<Arguments> droneAuths() {
    return Stream.of(
        Arguments.of("no workspaceId", obj("hostname", "h"),
            "bad auth payload: \"workspaceId\" is required"),
        Arguments.of("workspaceId a number", obj("workspaceId", 5),
            "bad auth payload: \"workspaceId\" must be a string; got 5"),
        Arguments.of("hostname 254 characters", obj("workspaceId", "w2", "hostname", chars(254)),
            "bad auth payload: \"hostname\" must be at most 253 characters; got 254"),
        Arguments.of("workspaceDir 4,097 characters", obj("workspaceId", "w3",
            "workspaceDir", "/" + chars(4_096)),
            "bad auth payload: \"workspaceDir\" must be at most 4,096 characters; got 4,097"),
        Arguments.of("mode an ordinal", obj("workspaceId", "w4", "mode", 1),
            "bad auth payload: \"mode\" must be one of \"idle\", \"user\", \"agent\"; got 1"));
  }

  @Order(2)
  @Test
  void afterEveryBadPayloadTheServerStillRunsAPrompt() throws Exception {
    cases().forEach(a -> {
      Object[] v = a.get();
      @SuppressWarnings("unchecked")
      Supplier<List<JsonNode>> args = (Supplier<List<JsonNode>>) v[3];
      page.connection.emit((String) v[0], args.get());
    });
    page.request(Protocol.WATCH_SESSION, obj("sessionId", sessionId));
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        obj("sessionId", sessionId, "prompt", "a".repeat(100_000)));
    assertThat(reply.has("turnId")).as("%s", reply).isTrue();
    assertThat(page.completion(reply.get("turnId").asText()).get("status").asText())
        .isEqualTo("finished");
    assertThat(fx.store.listProjects(ada.user().id())).hasSize(1);
  }
}
