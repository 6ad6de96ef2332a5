package dev.gadget.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoDatabase;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ModelPrice;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.StoreException;
import dev.gadget.store.mongo.internal.Codecs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the contract kit does not pin down but this store promises: the documents and indexes it
 * writes, duplicate keys as DUPLICATE, unreadable documents as FAILED without harming the rest,
 * exact instants, and the builder's rules.
 */
@ExtendWith(TestMongo.Extension.class)
class MongoChatStoreBehaviourTest {
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00.123Z");

  private final CommandRecorder recorder = new CommandRecorder();
  private TestMongo mongo;
  private String database;
  private MongoChatStore store;
  private MongoDatabase raw;

  @BeforeEach
  void open() {
    mongo = TestMongo.get();
    database = mongo.newDatabase();
    store = recorder.openStore(database);
    raw = mongo.client().getDatabase(database);
  }

  @AfterEach
  void close() {
    store.close();
    mongo.drop(database);
  }

  @Test
  void createsItsIndexesWhenBuilt() {
    Map<String, List<String>> created = new HashMap<>();
    for (CommandRecorder.Command c : recorder.all()) {
      if (c.name().equals("createIndexes")) {
        List<String> specs = new ArrayList<>();
        for (var index : c.command().getArray("indexes")) {
          BsonDocument spec = index.asDocument();
          specs.add(spec.getDocument("key").toJson()
              + (spec.getBoolean("unique", BsonBoolean.FALSE).getValue() ? " unique" : ""));
        }
        created.put(c.command().getString("createIndexes").getValue(), specs);
      }
    }
    assertThat(created).containsOnly(
        Map.entry("users", List.of("{\"username\": 1} unique")),
        Map.entry("tokens", List.of("{\"hash\": 1} unique", "{\"userId\": 1}")),
        Map.entry("projects", List.of("{\"userId\": 1, \"_id\": 1}")),
        Map.entry("chatSessions", List.of("{\"userId\": 1, \"projectId\": 1, \"_id\": 1}")),
        Map.entry("chatTurns", List.of("{\"sessionId\": 1, \"seq\": 1, \"_id\": 1}",
            "{\"status\": 1, \"_id\": 1}")),
        Map.entry("drones", List.of("{\"userId\": 1, \"workspaceId\": 1, \"_id\": 1}")),
        Map.entry("providers", List.of("{\"userId\": 1, \"_id\": 1}")),
        Map.entry("usageTotals", List.of("{\"userId\": 1, \"providerId\": 1, \"modelId\": 1}")));
    // And the server lists them (mongo-java-server accepts non-unique indexes without using them).
    Map<String, List<String>> listed = new HashMap<>();
    for (String collection : created.keySet()) {
      List<String> keys = new ArrayList<>();
      raw.getCollection(collection).listIndexes()
          .forEach(i -> keys.add(((Document) i.get("key")).toJson()));
      listed.put(collection, keys);
    }
    assertThat(listed.get("chatTurns")).contains("{\"sessionId\": 1, \"seq\": 1, \"_id\": 1}",
        "{\"status\": 1, \"_id\": 1}");
    assertThat(listed.get("users")).contains("{\"username\": 1}");
    assertThat(listed.get("drones")).contains("{\"userId\": 1, \"workspaceId\": 1, \"_id\": 1}");
  }

  @Test
  void writesTheDocumentsDocsStoreMongoDescribes() {
    User ada = user("ada");
    ChatTurn turn = ChatTurn.start(Ids.next(), "s1", ada.id(), 4, "fix it", "build", T0);
    store.createTurn(turn);
    ToolCall call = new ToolCall("c1", "read_file", "{}", "x");
    store.appendBlock(turn.id(), new TurnBlock.Tool(0, T0, call));
    store.finalizeTurn(turn.id(), TurnStatus.FINISHED, new TurnStats(1, 2, 3, 1, 1, 9), null,
        T0.plusSeconds(2));
    Document d = raw.getCollection("chatTurns").find().first();
    assertThat(d.get("_id")).isEqualTo(turn.id());
    assertThat(d.get("seq")).isEqualTo(4L);
    assertThat(d.get("status")).isEqualTo("finished");
    assertThat(d.get("createdAt")).isEqualTo(Date.from(T0));
    assertThat(d.get("finishedAt")).isEqualTo(Date.from(T0.plusSeconds(2)));
    assertThat(d.getList("blocks", Document.class)).singleElement().satisfies(b -> {
      assertThat(b.get("seq")).isEqualTo(0);
      assertThat(b.get("mode")).isEqualTo("tool");
      assertThat(b.get("content", Document.class).get("callId")).isEqualTo("c1");
    });
    assertThat(d.getList("toolCalls", Document.class)).singleElement()
        .satisfies(c -> assertThat(c.get("name")).isEqualTo("read_file"));
    assertThat(d.get("stats", Document.class).get("durationMs")).isEqualTo(9L);
    assertThat(d).doesNotContainKey("error");
    Document u = raw.getCollection("users").find().first();
    assertThat(u).containsEntry("username", "ada").containsEntry("createdAt", Date.from(T0));
  }

  @Test
  void cacheCountsAreAddedToTotalsAndTotalsAndPricesWithoutThemStillLoad() {
    User ada = user("ada");
    // a total and a provider's price as a version before cache counts wrote them
    raw.getCollection("usageTotals").insertOne(new Document("_id", ada.id() + "\np1\nm")
        .append("userId", ada.id())
        .append("providerId", "p1").append("modelId", "m").append("turns", 1L)
        .append("calls", 1L).append("errors", 0L).append("promptTokens", 100L)
        .append("completionTokens", 1L).append("reasoningTokens", 0L).append("durationMs", 1L));
    raw.getCollection("providers").insertOne(new Document("_id", "old-p")
        .append("userId", ada.id()).append("name", "old").append("kind", "openai")
        .append("baseUrl", "http://127.0.0.1:9").append("createdAt", Date.from(T0))
        .append("prices", List.of(new Document("modelId", "m").append("inputPerMillion", 1.0)
            .append("outputPerMillion", 2.0))));
    assertThat(store.providers().listUsage(ada.id())).singleElement()
        .satisfies(u -> assertThat(u.cacheReadTokens()).isZero());
    assertThat(store.providers().findProvider("old-p").orElseThrow().prices())
        .containsExactly(new ModelPrice("m", 1, 2));

    store.providers().addUsage(UsageTotal.ofTurn(ada.id(), new TurnModel("p1", "P1", "m"),
        new TurnStats(1000, 10, 0, 0, 2, 5).withCache(900, 50), false));
    assertThat(store.providers().listUsage(ada.id())).singleElement().satisfies(u -> {
      assertThat(u.promptTokens()).isEqualTo(1100);
      assertThat(u.cacheReadTokens()).isEqualTo(900);
      assertThat(u.cacheWriteTokens()).isEqualTo(50);
    });
    ModelPrice own = new ModelPrice("m", 3, 15, 0.3, 3.75);
    store.providers().saveProvider(new ModelProvider("old-p", ada.id(), "old", "openai",
        "http://127.0.0.1:9", null, T0, List.of(own)));
    assertThat(store.providers().findProvider("old-p").orElseThrow().prices())
        .containsExactly(own);
  }

  @Test
  void samplingIsASubdocumentOfWhatIsSetAndDocumentsWithoutItStillLoad() {
    User ada = user("ada");
    ModelProvider p = new ModelProvider(Ids.next(), ada.id(), "tuned", "ollama",
        "http://127.0.0.1:11434", null, T0, List.of(), new Sampling(0.3, null, 40));
    store.providers().saveProvider(p);
    assertThat(raw.getCollection("providers").find().first().get("sampling", Document.class))
        .isEqualTo(new Document("temperature", 0.3).append("topK", 40));
    ChatSession s = new ChatSession(Ids.next(), ada.id(), "p", "s", null, T0);
    store.createSession(s);
    assertThat(raw.getCollection("chatSessions").find().first()).doesNotContainKey("sampling");
    store.providers().setSessionSampling(s.id(), new Sampling(null, 0.95, null));
    assertThat(raw.getCollection("chatSessions").find().first().get("sampling", Document.class))
        .isEqualTo(new Document("topP", 0.95));
    store.providers().setSessionSampling(s.id(), Sampling.NONE);
    assertThat(raw.getCollection("chatSessions").find().first()).doesNotContainKey("sampling");

    // documents as a version before sampling wrote them
    raw.getCollection("providers").insertOne(new Document("_id", "old-p")
        .append("userId", ada.id()).append("name", "old").append("kind", "openai")
        .append("baseUrl", "http://127.0.0.1:9").append("createdAt", Date.from(T0)));
    raw.getCollection("chatSessions").insertOne(new Document("_id", "old-s")
        .append("userId", ada.id()).append("projectId", "p").append("name", "old")
        .append("providerId", "old-p").append("modelId", "m").append("createdAt", Date.from(T0)));
    assertThat(store.providers().findProvider("old-p").orElseThrow().sampling()).isNull();
    assertThat(store.findSession("old-s").orElseThrow().sampling()).isNull();
    assertThat(store.findSession("old-s").orElseThrow().modelId()).isEqualTo("m");
    // a top-k a person typed as a 64-bit number reads too; an out-of-range one is named
    raw.getCollection("chatSessions").updateOne(new Document("_id", "old-s"),
        new Document("$set", new Document("sampling", new Document("topK", 12L))));
    assertThat(store.findSession("old-s").orElseThrow().sampling())
        .isEqualTo(new Sampling(null, null, 12));
    raw.getCollection("chatSessions").updateOne(new Document("_id", "old-s"),
        new Document("$set", new Document("sampling", new Document("temperature", 9))));
    assertThatThrownBy(() -> store.findSession("old-s"))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("temperature must be a number from 0 to 2; got 9.0");
  }

  @Test
  void duplicateKeysAreDuplicate() {
    User ada = user("ada");
    assertDuplicate(() -> store.createUser(new User(ada.id(), "other", null, T0)));
    StoredToken token = new StoredToken(Ids.next(), ada.id(), TokenKind.USER, "", "0".repeat(64), T0);
    store.saveToken(token);
    assertDuplicate(() -> store.saveToken(
        new StoredToken(Ids.next(), ada.id(), TokenKind.DRONE, "", "0".repeat(64), T0)));
    assertDuplicate(() -> store.saveToken(token));
    ChatSession s = new ChatSession(Ids.next(), ada.id(), "p", "s", null, T0);
    store.createSession(s);
    assertDuplicate(() -> store.createSession(s));
    ChatTurn t = ChatTurn.start(Ids.next(), s.id(), ada.id(), 0, "p", null, T0);
    store.createTurn(t);
    assertDuplicate(() -> store.createTurn(t));
    Project p = new Project(Ids.next(), ada.id(), "n", "n", "/n", T0);
    store.createProject(p);
    assertThatThrownBy(() -> store.createProject(p))
        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.getMessage())
            .contains("project " + p.id() + " already exists"));
  }

  @Test
  void anUnreadableDocumentFailsItsReadsOnlyAndLosesNothingElse() {
    User ada = user("ada");
    ChatTurn good = ChatTurn.start(Ids.next(), "s1", ada.id(), 0, "ok", null, T0);
    store.createTurn(good);
    raw.getCollection("chatTurns").insertOne(new Document("_id", "bad1").append("sessionId", "s2")
        .append("userId", ada.id()).append("seq", 0).append("status", "paused")
        .append("prompt", "?").append("createdAt", new Date()));

    assertThatThrownBy(() -> store.findTurn("bad1"))
        .isInstanceOfSatisfying(StoreException.class, e -> {
          assertThat(e.reason()).isEqualTo(StoreException.Reason.FAILED);
          assertThat(e.getMessage()).contains("chatTurns").contains("bad1").contains("paused");
        });
    assertThatThrownBy(() -> store.listTurns("s2")).isInstanceOf(StoreException.class);
    assertThat(store.listUnfinishedTurns()).extracting(ChatTurn::id).containsExactly(good.id());
    assertThat(store.findTurn(good.id())).isPresent();
    assertThat(store.listTurns("s1")).extracting(ChatTurn::id).containsExactly(good.id());
    store.appendBlock(good.id(), new TurnBlock.Responding(0, T0, "still here"));
    assertThat(store.findTurn(good.id()).orElseThrow().blocks()).hasSize(1);
  }

  @Test
  void blocksAppendedOutOfOrderComeBackBySeqAndAReplayedToolCallIsNotDoubled() {
    User ada = user("ada");
    ChatTurn t = ChatTurn.start(Ids.next(), "s1", ada.id(), 0, "p", null, T0);
    store.createTurn(t);
    ToolCall call = new ToolCall("c1", "ls", "{}", "a b");
    store.appendBlock(t.id(), new TurnBlock.Tool(2, T0, call));
    store.appendBlock(t.id(), new TurnBlock.Thinking(0, T0, "hmm"));
    store.appendBlock(t.id(), new TurnBlock.Tool(2, T0, call));
    store.appendBlock(t.id(), new TurnBlock.Responding(1, T0, "ok"));
    ChatTurn back = store.findTurn(t.id()).orElseThrow();
    assertThat(back.blocks()).extracting(TurnBlock::seq).containsExactly(0, 1, 2);
    assertThat(back.toolCalls()).containsExactly(call);
  }

  @Test
  void instantsFinerThanAMillisecondComeBackExactly() {
    Instant fine = Instant.parse("2026-04-29T19:30:00.123456789Z");
    User ada = new User(Ids.next(), "ada", null, fine);
    store.createUser(ada);
    assertThat(store.findUser(ada.id())).contains(ada);
    assertThat(raw.getCollection("users").find().first().get("createdAt"))
        .isEqualTo(new Date(fine.toEpochMilli()));

    ChatTurn t = ChatTurn.start(Ids.next(), "s1", ada.id(), 0, "p", null, T0);
    store.createTurn(t);
    store.appendBlock(t.id(), new TurnBlock.Responding(0, fine, "x"));
    store.finalizeTurn(t.id(), TurnStatus.CANCELLED, null, null, fine);
    ChatTurn back = store.findTurn(t.id()).orElseThrow();
    assertThat(back.finishedAt()).isEqualTo(fine);
    assertThat(back.blocks().get(0).createdAt()).isEqualTo(fine);

    DroneRegistration d = new DroneRegistration(Ids.next(), ada.id(), "ws", "h", "/w",
        DroneStatus.AVAILABLE, T0, fine);
    store.saveDrone(d);
    store.updateDroneStatus(d.id(), DroneStatus.BUSY, T0.plusSeconds(1));
    assertThat(store.findDrone(d.id()).orElseThrow().lastSeenAt()).isEqualTo(T0.plusSeconds(1));
    assertThat(raw.getCollection("drones").find().first()).doesNotContainKey("lastSeenAtNanos");
  }

  @Test
  void finalizingRemovesAnEarlierErrorOnlyWhenItWins() {
    User ada = user("ada");
    ChatTurn t = ChatTurn.start(Ids.next(), "s1", ada.id(), 0, "p", null, T0);
    store.createTurn(t);
    assertThat(store.finalizeTurn(t.id(), TurnStatus.ERROR, null, "llm down", T0)).isTrue();
    assertThat(store.finalizeTurn(t.id(), TurnStatus.FINISHED, null, null, T0)).isFalse();
    ChatTurn back = store.findTurn(t.id()).orElseThrow();
    assertThat(back.status()).isEqualTo(TurnStatus.ERROR);
    assertThat(back.error()).isEqualTo("llm down");
    assertThat(back.stats()).isEqualTo(TurnStats.EMPTY);
  }

  @Test
  void aClosedStoreRefusesCallsAndAGivenClientStaysOpen() {
    MongoChatStore shared = MongoChatStore.builder()
        .mongoClient(mongo.client()).database(database).build();
    shared.close();
    shared.close();
    assertThatThrownBy(() -> shared.findUser("x")).isInstanceOf(IllegalStateException.class);
    assertThat(store.findUser("x")).isEmpty(); // the shared client was not closed
    mongo.client().getDatabase(database).listCollectionNames().first();

    store.close();
    assertThatThrownBy(() -> store.findUser("x"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }

  @Test
  void documentsThatBreakAUniqueIndexFailTheBuildClearly() {
    String other = mongo.newDatabase();
    try {
      var rawUsers = mongo.client().getDatabase(other).getCollection("users");
      rawUsers.insertOne(Codecs.user(new User("u1", "twin", null, T0)));
      rawUsers.insertOne(Codecs.user(new User("u2", "twin", null, T0)));
      assertThatThrownBy(() -> MongoChatStore.builder().connectionString(mongo.connectionString())
          .database(other).build())
          .isInstanceOfSatisfying(StoreException.class, e -> {
            assertThat(e.reason()).isEqualTo(StoreException.Reason.FAILED);
            assertThat(e.getMessage()).contains("cannot create the indexes in").contains(other);
          });
    } finally {
      mongo.drop(other);
    }
  }

  @Test
  void theBuilderRefusesAmbiguousWiring() {
    assertThatThrownBy(() -> MongoChatStore.builder().build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> MongoChatStore.builder().connectionString(mongo.connectionString())
        .mongoClient(mongo.client()).build()).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> MongoChatStore.builder().mongoClient(mongo.client())
        .serverSelectionTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> MongoChatStore.builder().database("a/b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MongoChatStore.builder().database(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MongoChatStore.builder().readTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private User user(String name) {
    User u = new User(Ids.next(), name, null, T0);
    store.createUser(u);
    return u;
  }

  private static void assertDuplicate(Runnable call) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(StoreException.class,
        e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.DUPLICATE));
  }
}
