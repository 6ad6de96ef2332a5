package dev.gadget.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the fenced turn writes send MongoDB and leave in the turn's document: each is one
 * {@code updateOne} whose filter carries the fence and whose update {@code $max}es it, the fence
 * is the document's Int64 {@code fence} field, and a refused write leaves the document exactly as
 * it was (read back through another client), after one update and one read.
 */
@ExtendWith(TestMongo.Extension.class)
class FencedTurnWritesTest {
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00.123Z");

  private final CommandRecorder recorder = new CommandRecorder();
  private String database;
  private MongoChatStore store;
  private MongoCollection<Document> raw;
  private ChatTurn turn;

  @BeforeEach
  void open() {
    TestMongo mongo = TestMongo.get();
    database = mongo.newDatabase();
    store = recorder.openStore(database);
    raw = mongo.client().getDatabase(database).getCollection("chatTurns");
    User ada = new User(Ids.next(), "ada", "Ada", T0);
    store.createUser(ada);
    Project p = new Project(Ids.next(), ada.id(), "one", "one", "/r/one.git", T0);
    store.createProject(p);
    ChatSession s = new ChatSession(Ids.next(), ada.id(), p.id(), "s", null, T0);
    store.createSession(s);
    turn = ChatTurn.start(Ids.next(), s.id(), ada.id(), 0, "go", "build", T0);
    store.createTurn(turn);
  }

  @AfterEach
  void close() {
    store.close();
    TestMongo.get().drop(database);
  }

  private Document document() {
    return raw.find(Filters.eq("_id", turn.id())).first();
  }

  @Test
  void eachFencedWriteIsOneUpdateThatCarriesAndRaisesTheFence() {
    assertThat(store.fencesTurns()).isTrue();
    assertThat(document()).doesNotContainKey("fence");
    recorder.clear();
    store.appendBlock(turn.id(), new TurnBlock.Responding(0, T0, "one"), 3);
    store.appendBlock(turn.id(), new TurnBlock.Tool(1, T0,
        new ToolCall("c1", "read_file", "{}", "text")), 3);
    store.saveBlock(turn.id(), new TurnBlock.Responding(0, T0, "one, saved"), 3);
    store.claimTurn(turn.id(), 4);
    assertThat(store.finalizeTurn(turn.id(), TurnStatus.FINISHED, null, null, T0, 4)).isTrue();

    List<CommandRecorder.Command> writes = recorder.writes();
    assertThat(writes).hasSize(5).allSatisfy(w -> {
      assertThat(w.name()).isEqualTo("update");
      assertThat(w.statements()).hasSize(1);
      BsonDocument statement = w.statements().get(0);
      assertThat(statement.getDocument("q").toJson()).contains(turn.id())
          .contains("{\"$or\": [{\"fence\": {\"$exists\": false}}, {\"fence\": {\"$lte\": ");
      assertThat(statement.getDocument("u").getDocument("$max").keySet())
          .containsExactly("fence");
    });
    assertThat(recorder.all()).extracting(CommandRecorder.Command::name)
        .as("a write that was made reads nothing").doesNotContain("find");
    assertThat(document().get("fence")).isEqualTo(4L);
    assertThat(document().getString("status")).isEqualTo("finished");
  }

  @Test
  void aRefusedWriteLeavesTheDocumentAsItWasAfterOneUpdateAndOneRead() {
    store.appendBlock(turn.id(), new TurnBlock.Responding(0, T0, "from B"), 7);
    Document before = document();
    assertThat(before.get("fence")).isEqualTo(7L);

    for (ThrowingCallable older : List.<ThrowingCallable>of(
        () -> store.appendBlock(turn.id(), new TurnBlock.Responding(1, T0, "from A"), 6),
        () -> store.saveBlock(turn.id(), new TurnBlock.Responding(0, T0, "over B"), 6),
        () -> store.claimTurn(turn.id(), 6),
        () -> store.finalizeTurn(turn.id(), TurnStatus.ERROR, null, "A gave up", T0, 6))) {
      recorder.clear();
      assertThatThrownBy(older).isInstanceOfSatisfying(StoreException.class, e -> {
        assertThat(e.reason()).isEqualTo(StoreException.Reason.FENCED);
        assertThat(e).hasMessage("turn " + turn.id() + " was taken over by another node"
            + " (fence 7 > 6): this write was not made");
      });
      assertThat(document()).isEqualTo(before);
      List<String> sent = recorder.all().stream().map(CommandRecorder.Command::name)
          .filter(n -> n.equals("update") || n.equals("find")).toList();
      // saveBlock tries its replace, then its add, as the plain one does
      assertThat(sent).endsWith("update", "find").hasSizeLessThanOrEqualTo(3);
    }
  }

  @Test
  void aFenceWrittenByHandAsAnyNumberIsHonoured() {
    raw.updateOne(Filters.eq("_id", turn.id()), Updates.set("fence", 5));
    assertThatThrownBy(() -> store.appendBlock(turn.id(),
        new TurnBlock.Responding(0, T0, "old"), 4))
        .hasMessageContaining("(fence 5 > 4)");
    store.appendBlock(turn.id(), new TurnBlock.Responding(0, T0, "current"), 5);
    store.claimTurn(turn.id(), 9);
    assertThat(((Number) document().get("fence")).longValue()).isEqualTo(9L);
    assertThat(store.findTurn(turn.id()).orElseThrow().blocks())
        .containsExactly(new TurnBlock.Responding(0, T0, "current"));
  }
}
