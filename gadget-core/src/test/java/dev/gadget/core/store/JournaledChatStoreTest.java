package dev.gadget.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ModelPrice;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ChatStoreContract;
import dev.gadget.core.spi.StoreException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journaled store passes the compatibility kit, and keeps what it acknowledged: across
 * reopening and compaction, past a record torn by a crash, and refusing a damaged one.
 */
class JournaledChatStoreTest extends ChatStoreContract {
  @TempDir static Path root;
  static final AtomicInteger stores = new AtomicInteger();

  @TempDir Path dir;

  @Override
  protected ChatStore newStore() {
    return JournaledChatStore.open(root.resolve("contract-" + stores.incrementAndGet()));
  }

  /** Writes one of everything; returns the turn. */
  private static ChatTurn fill(ChatStore s, String name) {
    User u = new User(Ids.next(), name, name, T0);
    s.createUser(u);
    new Tokens(s).issue(u.id(), TokenKind.USER, "page");
    Project p = new Project(Ids.next(), u.id(), "p", "p", "/p.git", T0);
    s.createProject(p);
    ChatSession session = new ChatSession(Ids.next(), u.id(), p.id(), "s", null, T0);
    s.createSession(session);
    s.setSessionWorkspace(session.id(), "ws-1");
    s.renameSession(session.id(), "renamed s");
    s.renameProject(p.id(), "renamed p");
    ChatTurn t = ChatTurn.start(Ids.next(), session.id(), u.id(), 0, "hi", "build", T0);
    s.createTurn(t);
    s.appendBlock(t.id(), new TurnBlock.Thinking(0, T0, "hmm"));
    s.appendBlock(t.id(), new TurnBlock.Tool(1, T0, new ToolCall("c", "read_file", "{}", "x")));
    s.setTurnDrone(t.id(), "d1");
    s.finalizeTurn(t.id(), TurnStatus.FINISHED, new TurnStats(1, 2, 3, 1, 1, 9), null, T0);
    DroneRegistration d = new DroneRegistration(Ids.next(), u.id(), "ws-1", "h", "/w",
        DroneStatus.AVAILABLE, T0, T0);
    s.saveDrone(d);
    s.updateDroneStatus(d.id(), DroneStatus.BUSY, T0.plusSeconds(1));
    Project gone = new Project(Ids.next(), u.id(), "gone", "gone", "/gone.git", T0);
    s.createProject(gone);
    ChatSession goneWithIt = new ChatSession(Ids.next(), u.id(), gone.id(), "g", null, T0);
    s.createSession(goneWithIt);
    s.createTurn(ChatTurn.start(Ids.next(), goneWithIt.id(), u.id(), 0, "bye", "build", T0));
    ChatSession deleted = new ChatSession(Ids.next(), u.id(), p.id(), "d", null, T0);
    s.createSession(deleted);
    s.createTurn(ChatTurn.start(Ids.next(), deleted.id(), u.id(), 0, "bye", "build", T0));
    s.deleteSession(deleted.id());
    s.deleteProject(gone.id());
    return s.findTurn(t.id()).orElseThrow();
  }

  @Test
  void keepsEveryKindOfWriteAcrossReopening() {
    ChatTurn turn;
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      turn = fill(s, "ada");
    }
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      User ada = s.findUserByName("ada").orElseThrow();
      assertThat(s.findTurn(turn.id())).contains(turn);
      assertThat(s.listTurns(turn.sessionId())).containsExactly(turn);
      assertThat(s.findSession(turn.sessionId()).orElseThrow().workspaceId()).isEqualTo("ws-1");
      assertThat(s.listProjects(ada.id())).extracting(Project::name).containsExactly("renamed p");
      assertThat(s.findSession(turn.sessionId()).orElseThrow().name()).isEqualTo("renamed s");
      assertThat(s.findDroneByWorkspace(ada.id(), "ws-1").orElseThrow().status())
          .isEqualTo(DroneStatus.BUSY);
      assertThat(s.listUnfinishedTurns()).isEmpty();
      assertThat(s.listSessions(ada.id(), null)).extracting(ChatSession::id)
          .containsExactly(turn.sessionId());
    }
  }

  @Test
  void keepsProvidersSessionModelsTurnModelsAndUsageAcrossReopeningAndCompaction() {
    ChatTurn turn;
    ModelProvider p;
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      turn = fill(s, "ada");
      p = new ModelProvider(Ids.next(), turn.userId(), "mine", "ollama",
          "http://127.0.0.1:11434", "gk1:abc:sealed", T0,
          List.of(new ModelPrice("qwen3:0.6b", 0.5, 1.5)));
      s.providers().saveProvider(p);
      s.providers().setSessionModel(turn.sessionId(), p.id(), "qwen3:0.6b");
      ChatTurn modelled = ChatTurn.start(Ids.next(), turn.sessionId(), turn.userId(), 1, "x",
          "build", T0).withModel(new TurnModel(p.id(), "mine", "qwen3:0.6b"));
      s.createTurn(modelled);
      for (int i = 0; i < 3; i++) {
        s.providers().addUsage(UsageTotal.ofTurn(turn.userId(), modelled.model(),
            new TurnStats(10, 2, 1, 0, 1, 5), false, p.priceOf("qwen3:0.6b")));
      }
      s.compact();
      s.providers().addUsage(UsageTotal.ofTurn(turn.userId(), modelled.model(),
          new TurnStats(10, 2, 1, 0, 1, 5), true));
      turn = modelled;
    }
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertThat(s.providers().listProviders(turn.userId())).containsExactly(p);
      assertThat(s.findSession(turn.sessionId()).orElseThrow().modelId()).isEqualTo("qwen3:0.6b");
      assertThat(s.findTurn(turn.id()).orElseThrow().model().providerId()).isEqualTo(p.id());
      assertThat(s.providers().listUsage(turn.userId())).singleElement().satisfies(u -> {
        assertThat(u.turns()).isEqualTo(4);
        assertThat(u.promptTokens()).isEqualTo(40);
        assertThat(u.errors()).isEqualTo(1);
        // three costed turns of 10 prompt tokens at $0.50/M and 2 completion at $1.50/M
        assertThat(u.costNanos()).isEqualTo(3 * 8_000L);
      });
    }
  }

  @Test
  void keepsSamplingAcrossCompactionAndReadsRecordsWrittenBeforeSamplingWas() throws IOException {
    ChatTurn turn;
    ModelProvider tuned;
    Sampling chat = new Sampling(1.2, null, 5);
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      turn = fill(s, "ada");
      tuned = new ModelProvider(Ids.next(), turn.userId(), "tuned", "ollama",
          "http://127.0.0.1:11434", null, T0, List.of(), new Sampling(0.4, 0.8, null));
      s.providers().saveProvider(tuned);
      s.providers().setSessionSampling(turn.sessionId(), new Sampling(2.0, null, null));
      s.compact();
      s.providers().setSessionSampling(turn.sessionId(), chat);
    }
    // what a version before sampling wrote: a provider and a session without it
    String oldProvider = Ids.next();
    String oldSession = Ids.next();
    Files.write(dir.resolve(journalName(dir)), concat(
        dev.gadget.core.store.internal.RecordCodec.encode(java.util.Map.of("op",
            "saveProvider", "provider", java.util.Map.of("_id", oldProvider, "userId",
                turn.userId(), "name", "old", "kind", "openai", "baseUrl",
                "http://127.0.0.1:9/v1", "createdAt", T0.toString(), "prices", List.of()))),
        dev.gadget.core.store.internal.RecordCodec.encode(java.util.Map.of("op",
            "createSession", "session", java.util.Map.of("_id", oldSession, "userId",
                turn.userId(), "projectId", "p-old", "name", "old chat", "createdAt",
                T0.toString(), "providerId", oldProvider, "modelId", "m")))),
        StandardOpenOption.APPEND);
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertThat(s.providers().findProvider(tuned.id())).contains(tuned);
      assertThat(s.findSession(turn.sessionId()).orElseThrow().sampling()).isEqualTo(chat);
      assertThat(s.providers().findProvider(oldProvider).orElseThrow().sampling()).isNull();
      ChatSession old = s.findSession(oldSession).orElseThrow();
      assertThat(old.sampling()).isNull();
      assertThat(old.modelId()).isEqualTo("m");
      s.providers().setSessionSampling(oldSession, chat);
      assertThat(s.findSession(oldSession).orElseThrow().sampling()).isEqualTo(chat);
    }
  }

  @Test
  void keepsCacheCountsAndReadsUsageAndPricesWrittenBeforeTheyWere() throws IOException {
    String user;
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      user = fill(s, "ada").userId();
      s.providers().addUsage(UsageTotal.ofTurn(user, new TurnModel("p1", "P1", "m"),
          new TurnStats(1000, 10, 0, 0, 2, 5).withCache(900, 50), false));
      s.compact();
    }
    // what a version before cache counts wrote: a total and a price without them
    Files.write(dir.resolve(journalName(dir)), concat(
        dev.gadget.core.store.internal.RecordCodec.encode(java.util.Map.of("op", "addUsage",
            "usage", java.util.Map.of("userId", user, "providerId", "p1", "modelId", "m",
                "turns", 1, "calls", 1, "errors", 0, "promptTokens", 100,
                "completionTokens", 1, "reasoningTokens", 0, "durationMs", 1))),
        dev.gadget.core.store.internal.RecordCodec.encode(java.util.Map.of("op",
            "saveProvider", "provider", java.util.Map.of("_id", "old-p", "userId", user,
                "name", "old", "kind", "openai", "baseUrl", "http://127.0.0.1:9/v1",
                "createdAt", T0.toString(), "prices", List.of(java.util.Map.of("modelId", "m",
                    "inputPerMillion", 1, "outputPerMillion", 2)))))),
        StandardOpenOption.APPEND);
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      UsageTotal u = s.providers().listUsage(user).get(0);
      assertThat(u.promptTokens()).isEqualTo(1100);
      assertThat(u.cacheReadTokens()).isEqualTo(900);
      assertThat(u.cacheWriteTokens()).isEqualTo(50);
      assertThat(s.providers().findProvider("old-p").orElseThrow().prices())
          .containsExactly(new ModelPrice("m", 1, 2));
    }
  }

  /** The newest journal file of a store directory. */
  private static String journalName(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("journal-") && n.endsWith(".jsonl"))
          .max(String::compareTo).orElseThrow();
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void compactsIntoASnapshotAndOpensFromIt() throws IOException {
    List<ChatTurn> turns = new java.util.ArrayList<>();
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      for (int i = 0; i < 5; i++) {
        turns.add(fill(s, "user" + i));
      }
      s.compact();
      // journal 1 keeps the finished turns' records; the snapshot indexes them
      assertThat(journals()).containsExactly("journal-000001.jsonl", "journal-000002.jsonl");
      assertThat(dir.resolve("index-000002.bin")).exists();
      turns.add(fill(s, "after"));
    }
    assertThat(dir.resolve("snapshot.jsonl")).exists();
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      for (ChatTurn t : turns) {
        assertThat(s.findTurn(t.id())).contains(t);
      }
      assertThat(s.findUserByName("after")).isPresent();
    }
  }

  @Test
  void aSessionKeepsItsOwnSettingsThroughACompaction() throws IOException {
    ChatSession session;
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      String id = fill(s, "ada").sessionId();
      s.setSessionSampling(id, new dev.gadget.core.model.Sampling(0.2, null, 40));
      s.setSessionApprovalPolicy(id, "commands");
      s.setSessionToolDeferral(id, "always");
      s.setSessionCreateTools(id, false);
      session = s.findSession(id).orElseThrow();
      s.compact();
    }
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertThat(s.findSession(session.id())).contains(session);
      assertThat(session.approvalPolicy()).isEqualTo("commands");
      assertThat(session.toolDeferral()).isEqualTo("always");
      assertThat(session.createTools()).isFalse();
    }
  }

  @Test
  void dropsARecordTornByACrashAndAppendsAfterTheLastWholeOne() throws IOException {
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      fill(s, "ada");
    }
    Path journal = dir.resolve("journal-000001.jsonl");
    long whole = Files.size(journal);
    Files.write(journal, "{\"op\":\"createUser\",\"user\":{\"_id\":\"6a".getBytes(
        StandardCharsets.UTF_8), StandardOpenOption.APPEND);

    String log = stderrOf(() -> {
      try (JournaledChatStore s = JournaledChatStore.open(dir)) {
        assertThat(s.findUserByName("ada")).isPresent();
        s.createUser(new User(Ids.next(), "bob", "Bob", T0));
      }
    });
    assertThat(log).contains("WARN", "The end of " + journal, "byte " + whole,
        "dropping it");
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertThat(s.findUserByName("ada")).isPresent();
      assertThat(s.findUserByName("bob")).isPresent();
    }
  }

  @Test
  void refusesToOpenWhenARecordBeforeTheEndIsDamaged() throws IOException {
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      fill(s, "ada");
    }
    Path journal = dir.resolve("journal-000001.jsonl");
    byte[] bytes = Files.readAllBytes(journal);
    int second = indexOf(bytes, (byte) '\n') + 1;
    int at = second + 20;
    bytes[at] = (byte) (bytes[at] == 'x' ? 'y' : 'x');
    Files.write(journal, bytes);

    assertThatThrownBy(() -> JournaledChatStore.open(dir))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.FAILED))
        .hasMessageContaining("cannot open the store in " + dir.toAbsolutePath())
        .hasMessageContaining("line 2 of journal-000001.jsonl (byte " + second + ") is damaged")
        .hasMessageContaining("its checksum does not match")
        .hasMessageContaining("truncate -s " + second)
        .hasMessageContaining("Nothing was changed");
    assertThat(Files.readAllBytes(journal)).isEqualTo(bytes);
    // the refusal released the directory
    assertThatThrownBy(() -> JournaledChatStore.open(dir)).hasMessageContaining("is damaged");
  }

  @Test
  void refusesAWholeRecordItCannotRead() throws IOException {
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      fill(s, "ada");
    }
    Path journal = dir.resolve("journal-000001.jsonl");
    Files.write(journal, dev.gadget.core.store.internal.RecordCodec.encode(
        java.util.Map.of("op", "fromTheFuture")), StandardOpenOption.APPEND);
    assertThatThrownBy(() -> JournaledChatStore.open(dir))
        .hasMessageContaining("is damaged: it is not a record this version can read");
  }

  @Test
  void oneProcessAtATimeAndOwnerOnlyFiles() throws IOException {
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      s.createUser(new User(Ids.next(), "ada", "Ada", T0));
      assertThatThrownBy(() -> JournaledChatStore.open(dir))
          .isInstanceOfSatisfying(StoreException.class,
              e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.UNAVAILABLE))
          .hasMessageContaining("the store directory " + dir.toAbsolutePath()
              + " is in use by another process (pid " + ProcessHandle.current().pid() + ")");
      if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
            .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(
            dir.resolve("journal-000001.jsonl")))).isEqualTo("rw-------");
      }
    }
    JournaledChatStore again = JournaledChatStore.open(dir);
    assertThat(again.findUserByName("ada")).isPresent();
    again.close();
    assertThatThrownBy(() -> again.findUserByName("ada"))
        .isInstanceOf(IllegalStateException.class);
    again.close();
  }

  private List<String> journals() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("journal-"))
          .sorted().toList();
    }
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** What {@code body} wrote to System.err, where slf4j-simple logs. */
  static String stderrOf(Runnable body) {
    PrintStream old = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(old);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
