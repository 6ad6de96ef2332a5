package dev.gadget.store.mongo.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** The document mapping, on literal values: no database involved. */
class CodecsTest {
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00.123Z");
  private static final Instant FINE = Instant.parse("2026-04-29T19:30:00.123456789Z");
  private static final String HASH = "ab".repeat(32);

  private static final ToolCall CALL = new ToolCall("c1", "read_file", "{\"path\":\"a\"}", "text");
  private static final ChatTurn TURN = new ChatTurn("t1", "s1", "u1", 3, TurnStatus.ERROR, "p",
      "plan",
      List.of(new TurnBlock.Thinking(0, T0, "hmm"), new TurnBlock.Responding(1, T0, "Sure"),
          new TurnBlock.Tool(2, T0, CALL), new TurnBlock.Tool(3, T0, new ToolCall("c2", "ls",
              null, null))),
      List.of(CALL), new TurnStats(1, 2, 3, 4, 5, 6).withTools(10, 302), T0, T0.plusSeconds(1),
      "boom", "d1");

  @Test
  void fieldNamesAndEnumValuesAreThoseOfTheJsonModel() {
    assertSameShape(Codecs.user(new User("u1", "ada", "Ada", T0)),
        json(new User("u1", "ada", "Ada", T0)));
    StoredToken token = new StoredToken("k1", "u1", TokenKind.DRONE, "laptop", HASH, T0);
    assertSameShape(Codecs.token(token), json(token));
    Project project = new Project("p1", "u1", "One", "one", "/r/one.git", T0);
    assertSameShape(Codecs.project(project), json(project));
    ChatSession session = new ChatSession("s1", "u1", "p1", "S", "ws-1", T0);
    assertSameShape(Codecs.session(session), json(session));
    ChatSession noWorkspace = session.withWorkspaceId(null);
    assertSameShape(Codecs.session(noWorkspace), json(noWorkspace));
    DroneRegistration drone = new DroneRegistration("d1", "u1", "ws-1", "host", "/w",
        DroneStatus.AVAILABLE, T0, T0.plusSeconds(5));
    assertSameShape(Codecs.drone(drone), json(drone));
    assertSameShape(Codecs.turn(TURN), json(TURN));
    ChatTurn fresh = ChatTurn.start("t2", "s1", "u1", 0, "p", null, T0);
    assertSameShape(Codecs.turn(fresh), json(fresh));
  }

  @Test
  void instantsAreBsonDatesAndRoundTripExactly() {
    Document d = Codecs.turn(TURN);
    assertThat(d.get("createdAt")).isEqualTo(Date.from(T0));
    assertThat(d.get("finishedAt")).isEqualTo(Date.from(T0.plusSeconds(1)));
    assertThat(d.keySet()).noneMatch(k -> k.endsWith("Nanos"));
    assertThat(Codecs.turn(d)).isEqualTo(TURN);

    User fine = new User("u1", "ada", "Ada", FINE);
    Document u = Codecs.user(fine);
    assertThat(u.get("createdAt")).isEqualTo(new Date(FINE.toEpochMilli()));
    assertThat(u.get("createdAtNanos")).isEqualTo(456_789);
    assertThat(Codecs.user(u)).isEqualTo(fine);

    TurnBlock block = new TurnBlock.Responding(0, FINE, "x");
    assertThat(Codecs.block(Codecs.block(block))).isEqualTo(block);
    Instant beforeEpoch = Instant.parse("1969-12-31T23:59:59.999000001Z");
    assertThat(Codecs.user(Codecs.user(new User("u", "a", "a", beforeEpoch))).createdAt())
        .isEqualTo(beforeEpoch);
  }

  @Test
  void everyEntityRoundTrips() {
    StoredToken token = new StoredToken("k1", "u1", TokenKind.USER, "", HASH, FINE);
    assertThat(Codecs.token(Codecs.token(token))).isEqualTo(token);
    Project project = new Project("p1", "u1", "One", "one", "/r/one.git", T0);
    assertThat(Codecs.project(Codecs.project(project))).isEqualTo(project);
    ChatSession session = new ChatSession("s1", "u1", "p1", "S", null, T0);
    assertThat(Codecs.session(Codecs.session(session))).isEqualTo(session);
    DroneRegistration drone = new DroneRegistration("d1", "u1", "ws-1", "host", "/w",
        DroneStatus.OFFLINE, T0, FINE);
    assertThat(Codecs.drone(Codecs.drone(drone))).isEqualTo(drone);
  }

  @Test
  void blocksComeBackInSeqOrderWhateverTheArrayOrder() {
    Document d = Codecs.turn(TURN);
    List<Object> reversed = new ArrayList<>(d.getList("blocks", Object.class));
    java.util.Collections.reverse(reversed);
    d.put("blocks", reversed);
    assertThat(Codecs.turn(d).blocks()).extracting(TurnBlock::seq).containsExactly(0, 1, 2, 3);
  }

  @Test
  void readsWhatAPersonOrAnOlderWriterMayHaveLeft() {
    Document d = Document.parse("{\"_id\": \"t9\", \"sessionId\": \"s\", \"userId\": \"u\","
        + " \"seq\": 2.0, \"status\": \"finished\", \"prompt\": \"p\","
        + " \"createdAt\": \"2026-04-29T19:30:00.123Z\", \"finishedAt\": 1777491000123,"
        + " \"stats\": {\"promptTokens\": 7}, \"future\": {\"x\": 1},"
        + " \"blocks\": [{\"seq\": 0, \"mode\": \"responding\", \"content\": \"hi\","
        + "   \"createdAt\": {\"$date\": \"2026-04-29T19:30:00.123Z\"}}]}");
    ChatTurn t = Codecs.turn(d);
    assertThat(t.seq()).isEqualTo(2);
    assertThat(t.createdAt()).isEqualTo(T0);
    assertThat(t.finishedAt()).isEqualTo(Instant.ofEpochMilli(1777491000123L));
    assertThat(t.mode()).isEqualTo("build");
    assertThat(t.stats()).isEqualTo(new TurnStats(7, 0, 0, 0, 0, 0));
    assertThat(t.toolCalls()).isEmpty();
    assertThat(t.blocks()).containsExactly(new TurnBlock.Responding(0, T0, "hi"));
  }

  @Test
  void aMalformedDocumentIsAFailureNamingItsCollectionAndId() {
    Document good = Codecs.turn(TURN);
    assertMalformed(new Document(good).append("status", "paused"), "unknown TurnStatus 'paused'");
    Document noPrompt = new Document(good);
    noPrompt.remove("prompt");
    assertMalformed(noPrompt, "missing field 'prompt'");
    assertMalformed(new Document(good).append("seq", "three"), "'seq' is a String, not a number");
    assertMalformed(new Document(good).append("createdAt", "yesterday"), "ISO-8601");
    assertMalformed(new Document(good).append("createdAtNanos", 5_000_000), "createdAtNanos");
    assertMalformed(new Document(good).append("blocks",
        List.of(new Document("seq", 0).append("mode", "dancing").append("createdAt",
            Date.from(T0)).append("content", "x"))), "unknown block mode 'dancing'");
    assertMalformed(new Document(good).append("blocks", "nope"), "'blocks' is not an array");

    assertThatThrownBy(() -> Codecs.user(new Document("_id", "u7").append("username", "a")))
        .isInstanceOfSatisfying(StoreException.class, e -> {
          assertThat(e.reason()).isEqualTo(StoreException.Reason.FAILED);
          assertThat(e.getMessage()).contains("users").contains("u7").contains("createdAt");
        });
  }

  private static void assertMalformed(Document d, String problem) {
    assertThatThrownBy(() -> Codecs.turn(d))
        .isInstanceOfSatisfying(StoreException.class, e -> {
          assertThat(e.reason()).isEqualTo(StoreException.Reason.FAILED);
          assertThat(e.getMessage()).contains("chatTurns").contains("t1").contains(problem);
        });
  }

  @Test
  void statsKeepCrashRetriesOllamasDurationsAndToolDurationsWithTheJsonModelsNames() {
    TurnStats full = new TurnStats(1, 2, 3, 1, 2, 900).withCrashRetries(1)
        .withProviderDurations(300L, 130L, 700L)
        .withToolDurations(List.of(new TurnStats.ToolDuration("c1", "read_file", 12)));
    Document d = Codecs.stats(full);
    assertThat(Codecs.stats(d)).isEqualTo(full);
    assertSameShape(d, json(full));
    assertThat(Codecs.stats(new Document("promptTokens", 1L))).isEqualTo(
        new TurnStats(1, 0, 0, 0, 0, 0));
  }

  private static JsonNode json(Object value) {
    return GadgetJson.mapper().valueToTree(value);
  }

  /** Same field names at every level, and the same text for every string-valued JSON field. */
  private static void assertSameShape(Object bson, JsonNode json) {
    if (json.isObject()) {
      assertThat(bson).isInstanceOf(Document.class);
      Document d = (Document) bson;
      Set<String> names = new HashSet<>();
      json.fieldNames().forEachRemaining(names::add);
      assertThat(d.keySet()).as("fields of %s", json).isEqualTo(names);
      for (String name : names) {
        assertSameShape(d.get(name), json.get(name));
      }
    } else if (json.isArray()) {
      assertThat(bson).isInstanceOf(List.class);
      List<?> list = (List<?>) bson;
      assertThat(list).hasSize(json.size());
      Iterator<JsonNode> it = json.elements();
      for (Object o : list) {
        assertSameShape(o, it.next());
      }
    } else if (bson instanceof Date date) {
      assertThat(Instant.parse(json.asText())).isEqualTo(date.toInstant());
    } else if (json.isTextual()) {
      assertThat(bson).isEqualTo(json.asText());
    } else if (json.isNumber()) {
      assertThat(((Number) bson).longValue()).isEqualTo(json.asLong());
    }
  }
}
