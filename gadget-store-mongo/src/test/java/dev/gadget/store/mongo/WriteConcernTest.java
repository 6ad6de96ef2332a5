package dev.gadget.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every write carries the store's write concern: majority and journaled unless the builder, the
 * connection string or the given client says otherwise.
 */
@ExtendWith(TestMongo.Extension.class)
class WriteConcernTest {
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00.123Z");
  private final TestMongo mongo = TestMongo.get();
  private final String database = mongo.newDatabase();

  @AfterEach
  void drop() {
    mongo.drop(database);
  }

  /** The write concern of every write command a store built by {@code builder} sends. */
  private List<BsonDocument> writeConcerns(UnaryOperator<MongoChatStore.Builder> builder) {
    CommandRecorder recorder = new CommandRecorder();
    try (MongoChatStore store = builder.apply(MongoChatStore.builder().database(database)
        .clientSettings(b -> b.addCommandListener(recorder))).build()) {
      User u = new User(Ids.next(), "ada-" + Ids.next(), "Ada", T0);
      store.createUser(u);
      ChatTurn t = ChatTurn.start(Ids.next(), "s1", u.id(), 0, "hi", "build", T0);
      store.createTurn(t);
      store.appendBlock(t.id(), new TurnBlock.Responding(0, T0, "ok"));
      store.finalizeTurn(t.id(), TurnStatus.FINISHED, null, null, T0);
    }
    List<CommandRecorder.Command> writes = recorder.all().stream()
        .filter(c -> CommandRecorder.WRITES.contains(c.name())).toList();
    assertThat(writes).extracting(CommandRecorder.Command::name)
        .containsExactly("insert", "insert", "update", "update");
    return writes.stream()
        .map(c -> c.command().getDocument("writeConcern", new BsonDocument())).toList();
  }

  @Test
  void majorityAndJournaledByDefault() {
    assertThat(writeConcerns(b -> b.connectionString(mongo.connectionString())))
        .hasSize(4).allSatisfy(wc -> assertThat(wc)
            .isEqualTo(BsonDocument.parse("{\"w\": \"majority\", \"j\": true}")));
  }

  @Test
  void theBuilderOrTheConnectionStringMayChooseAnother() {
    assertThat(writeConcerns(b -> b.connectionString(mongo.connectionString())
        .writeConcern(WriteConcern.W1)))
        .allSatisfy(wc -> assertThat(wc).isEqualTo(BsonDocument.parse("{\"w\": 1}")));
    String uri = mongo.connectionString();
    String withW = uri + (uri.contains("?") ? "&" : (uri.matches("mongodb(\\+srv)?://[^/]*")
        ? "/?" : "?")) + "w=1&journal=true";
    assertThat(writeConcerns(b -> b.connectionString(withW)))
        .allSatisfy(wc -> assertThat(wc).isEqualTo(BsonDocument.parse("{\"w\": 1, \"j\": true}")));
  }

  @Test
  void aGivenClientKeepsItsOwnUnlessItHasTheDriversDefault() {
    try (MongoClient plain = MongoClients.create(mongo.connectionString());
        MongoClient w1 = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(new com.mongodb.ConnectionString(mongo.connectionString()))
            .writeConcern(WriteConcern.W1).build())) {
      try (MongoChatStore store = MongoChatStore.builder().mongoClient(plain)
          .database(database).build()) {
        assertThat(store.writeConcern()).isEqualTo(WriteConcern.MAJORITY.withJournal(true));
      }
      try (MongoChatStore store = MongoChatStore.builder().mongoClient(w1)
          .database(database).build()) {
        assertThat(store.writeConcern()).isEqualTo(WriteConcern.W1);
      }
    }
  }
}
