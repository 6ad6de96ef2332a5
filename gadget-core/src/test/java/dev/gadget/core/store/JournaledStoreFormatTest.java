package dev.gadget.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.store.internal.Change;
import dev.gadget.core.store.internal.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layout that keeps finished turns on disk: a directory of the format before (version 1,
 * every turn whole in the snapshot, blocks as records of their own) is converted once, in place,
 * also after a conversion cut short by a crash; deleted chats free their journals.
 */
class JournaledStoreFormatTest {
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00.123Z");

  @TempDir Path dir;

  private final User ada = new User(Ids.next(), "ada", "Ada", T0);
  private final Project project = new Project(Ids.next(), ada.id(), "p", "p", "/p.git", T0);
  private final ChatSession old = new ChatSession(Ids.next(), ada.id(), project.id(), "old",
      null, T0);
  private final ChatSession recent = new ChatSession(Ids.next(), ada.id(), project.id(), "new",
      null, T0);
  private final ChatTurn inSnapshot = new ChatTurn(Ids.next(), old.id(), ada.id(), 0,
      TurnStatus.FINISHED, "hello", "build", List.of(new TurnBlock.Responding(0, T0, "hi")),
      List.of(), new TurnStats(1, 2, 0, 0, 1, 5), T0, T0, null, null);
  private final ChatTurn started = ChatTurn.start(Ids.next(), recent.id(), ada.id(), 0, "go",
      "build", T0);
  private final ChatTurn running = ChatTurn.start(Ids.next(), recent.id(), ada.id(), 1, "more",
      "build", T0);

  /** What today's format before this one wrote: a version 1 snapshot and journal 2. */
  private void writeVersionOne() throws IOException {
    List<Change> snapshot = List.of(new Change.CreateUser(ada),
        new Change.CreateProject(project), new Change.CreateSession(old),
        new Change.CreateTurn(inSnapshot));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(RecordCodec.encode(Map.of("format", "gadget-store-snapshot", "version", 1,
        "journal", 2, "records", snapshot.size())));
    for (Change c : snapshot) {
      out.write(RecordCodec.encode(c));
    }
    Files.createDirectories(dir);
    Files.write(dir.resolve("snapshot.jsonl"), out.toByteArray());
    out.reset();
    for (Change c : List.of(new Change.CreateSession(recent), new Change.CreateTurn(started),
        new Change.AppendBlock(started.id(), new TurnBlock.Thinking(0, T0, "hmm")),
        new Change.AppendBlock(started.id(), new TurnBlock.Tool(1, T0,
            new ToolCall("c", "read_file", "{}", "x"))),
        new Change.FinalizeTurn(started.id(), TurnStatus.FINISHED, null, null, T0),
        new Change.CreateTurn(running),
        new Change.AppendBlock(running.id(), new TurnBlock.Responding(0, T0, "on it")))) {
      out.write(RecordCodec.encode(c));
    }
    Files.write(dir.resolve("journal-000002.jsonl"), out.toByteArray());
  }

  private void assertConverted(JournaledChatStore s) {
    assertThat(s.findUserByName("ada")).contains(ada);
    assertThat(s.listTurns(old.id())).containsExactly(inSnapshot);
    ChatTurn finished = s.findTurn(started.id()).orElseThrow();
    assertThat(finished.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(finished.blocks()).extracting(TurnBlock::seq).containsExactly(0, 1);
    assertThat(finished.toolCalls()).extracting(ToolCall::name).containsExactly("read_file");
    assertThat(s.listUnfinishedTurns()).singleElement().satisfies(t -> {
      assertThat(t.id()).isEqualTo(running.id());
      assertThat(t.blocks()).hasSize(1);
    });
    assertThat(s.listTurns(recent.id())).extracting(ChatTurn::id)
        .containsExactly(started.id(), running.id());
  }

  @Test
  void convertsADirectoryOfTheFormatBeforeOnceInPlace() throws IOException {
    writeVersionOne();
    String log = JournaledChatStoreTest.stderrOf(() -> {
      try (JournaledChatStore s = JournaledChatStore.open(dir)) {
        assertConverted(s);
        s.finalizeTurn(running.id(), TurnStatus.FINISHED, null, null, T0);
      }
    });
    assertThat(log).contains("INFO", "Converted the store in " + dir.toAbsolutePath(),
        "version 3", "2 sessions, 3 turns");
    assertThat(files()).contains("journal-000003.jsonl", "journal-000004.jsonl",
        "index-000004.bin", "snapshot.jsonl").doesNotContain("journal-000002.jsonl");
    assertThat(Files.readString(dir.resolve("snapshot.jsonl"))).contains("\"version\":3")
        .doesNotContain("createUser", "createSession"); // these are in the index, in binary
    String again = JournaledChatStoreTest.stderrOf(() -> {
      try (JournaledChatStore s = JournaledChatStore.open(dir)) {
        assertThat(s.findTurn(inSnapshot.id())).contains(inSnapshot);
        assertThat(s.findTurn(running.id()).orElseThrow().status())
            .isEqualTo(TurnStatus.FINISHED);
        assertThat(s.listUnfinishedTurns()).isEmpty();
      }
    });
    assertThat(again).doesNotContain("Converted");
  }

  @Test
  void convertsAgainAfterAConversionCutShortByACrash() throws IOException {
    writeVersionOne();
    // a conversion killed while it wrote journal 3: a whole turn, then half of another
    byte[] whole = RecordCodec.encode(new Change.CreateTurn(inSnapshot));
    byte[] torn = Arrays.copyOf(whole, whole.length / 2);
    byte[] journal3 = Arrays.copyOf(whole, whole.length + torn.length);
    System.arraycopy(torn, 0, journal3, whole.length, torn.length);
    Files.write(dir.resolve("journal-000003.jsonl"), journal3);
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertConverted(s);
    }
    assertThat(files()).contains("journal-000004.jsonl")
        .doesNotContain("journal-000002.jsonl", "journal-000003.jsonl");
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertConverted(s);
    }
  }

  @Test
  void deletedChatsFreeTheirJournalsAndWhatIsLeftIsKept() throws IOException {
    List<ChatSession> sessions = new ArrayList<>();
    try (JournaledChatStore s = JournaledChatStore.builder(dir).cacheBytes(0).build()) {
      s.createUser(ada);
      s.createProject(project);
      for (int i = 0; i < 20; i++) {
        ChatSession chat = new ChatSession(Ids.next(), ada.id(), project.id(), "c" + i, null, T0);
        s.createSession(chat);
        sessions.add(chat);
        ChatTurn t = ChatTurn.start(Ids.next(), chat.id(), ada.id(), 0, "p" + i, "build", T0);
        s.createTurn(t);
        s.appendBlock(t.id(), new TurnBlock.Responding(0, T0, "x".repeat(2000)));
        s.finalizeTurn(t.id(), TurnStatus.FINISHED, null, null, T0);
      }
      s.compact();
      long before = bytes();
      for (ChatSession chat : sessions.subList(0, 15)) {
        s.deleteSession(chat.id());
      }
      s.compact(); // copies the 5 turns left out of journal 1, which is then deleted
      assertThat(files()).doesNotContain("journal-000001.jsonl");
      s.compact();
      assertThat(bytes()).isLessThan(before / 2);
    }
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertThat(s.listSessions(ada.id(), null)).hasSize(5);
      for (ChatSession chat : sessions.subList(15, 20)) {
        assertThat(s.listTurns(chat.id())).singleElement()
            .satisfies(t -> assertThat(t.blocks()).hasSize(1));
      }
      assertThat(s.listTurns(sessions.get(0).id())).isEmpty();
    }
  }

  @Test
  void aChatKeepsItsOrderWhenItsRunningTurnComesBeforeItsFinishedOnesInTheSnapshot() {
    ChatTurn first = ChatTurn.start(Ids.next(), recent.id(), ada.id(), 0, "a", "build", T0);
    ChatTurn second = ChatTurn.start(Ids.next(), recent.id(), ada.id(), 1, "b", "build", T0);
    ChatTurn third = ChatTurn.start(Ids.next(), recent.id(), ada.id(), 2, "c", "build", T0);
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      s.createUser(ada);
      s.createProject(project);
      s.createSession(recent);
      s.createTurn(first);
      s.createTurn(second);
      s.createTurn(third);
      s.finalizeTurn(first.id(), TurnStatus.FINISHED, null, null, T0);
      s.finalizeTurn(third.id(), TurnStatus.ERROR, null, "boom", T0);
      s.compact(); // the snapshot holds turn 1 (running), its index turns 0 and 2
    }
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertThat(s.listTurns(recent.id())).extracting(ChatTurn::seq).containsExactly(0L, 1L, 2L);
      assertThat(s.listUnfinishedTurns()).extracting(ChatTurn::id).containsExactly(second.id());
      assertThat(s.findTurn(third.id()).orElseThrow().error()).isEqualTo("boom");
    }
  }

  @Test
  void aSnapshotOfVersionTwoOpensAndTheNextOneKeepsTheSessionsInItsIndex() throws IOException {
    // version 2: the sessions as JSON records, no finished turn (so no index)
    ChatSession chosen = old.withWorkspaceId("ws-1").withModel("prov", "model-ü")
        .withSampling(new Sampling(0.5, null, 40));
    List<Change> snapshot = List.of(new Change.CreateUser(ada),
        new Change.CreateProject(project), new Change.CreateSession(chosen),
        new Change.CreateSession(recent));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(RecordCodec.encode(Map.of("format", "gadget-store-snapshot", "version", 2,
        "journal", 1, "records", snapshot.size(), "turns", 0)));
    for (Change c : snapshot) {
      out.write(RecordCodec.encode(c));
    }
    Files.write(dir.resolve("snapshot.jsonl"), out.toByteArray());
    String log = JournaledChatStoreTest.stderrOf(() -> {
      try (JournaledChatStore s = JournaledChatStore.open(dir)) {
        assertThat(s.findSession(chosen.id())).contains(chosen);
        s.compact();
      }
    });
    assertThat(log).doesNotContain("Converted");
    assertThat(files()).contains("index-000002.bin");
    assertThat(Files.readString(dir.resolve("snapshot.jsonl"))).contains("\"version\":3",
        "\"users\":1", "\"projects\":1", "\"sessions\":2")
        .doesNotContain("createUser", "createProject", "createSession");
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertThat(s.findSession(chosen.id())).contains(chosen);
      assertThat(s.listSessions(ada.id(), null)).containsExactlyInAnyOrder(chosen, recent);
      assertThat(s.findUserByName("ada")).contains(ada);
      assertThat(s.listProjects(ada.id())).containsExactly(project);
    }
  }

  private List<String> files() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private long bytes() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
