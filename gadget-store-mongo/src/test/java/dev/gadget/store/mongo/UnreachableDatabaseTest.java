package dev.gadget.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.mongodb.MongoException;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.StoreException;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * A store whose database cannot be reached fails each call quickly with
 * {@link StoreException.Reason#UNAVAILABLE} and a clear message, never hangs and never lets a
 * driver exception out, and works again once the database is there.
 */
class UnreachableDatabaseTest {
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00.123Z");
  private static final Duration SELECTION = Duration.ofMillis(400);
  /** Generous for a shared 2-core machine; a hang would exceed it by far. */
  private static final long BOUND_MS = 5_000;

  @Test
  void aClosedPortIsUnavailableQuicklyAndTheStoreRecoversWhenTheDatabaseComesUp()
      throws Exception {
    int port = closedPort();
    long start = System.nanoTime();
    MongoChatStore store = MongoChatStore.builder()
        .connectionString("mongodb://127.0.0.1:" + port)
        .database("gadget_unreachable")
        .serverSelectionTimeout(SELECTION)
        .build();
    MongoServer server = null;
    try {
      // build() does not fail: indexes wait for the first call that reaches the database.
      assertThat(millisSince(start)).isLessThan(BOUND_MS);

      User ada = new User(Ids.next(), "ada", "Ada", T0);
      StoreException e = unavailable(() -> store.createUser(ada));
      assertThat(e.getMessage())
          .contains("127.0.0.1:" + port)
          .contains("gadget_unreachable")
          .contains("unavailable during createUser")
          .contains("no server answered within 400 ms")
          .contains("retry later");
      assertThat(e.isRetryable()).isTrue();
      assertThat(e.getCause()).isInstanceOf(MongoException.class);

      unavailable(() -> store.findUser(ada.id()));
      unavailable(() -> store.listTurns("s"));
      unavailable(() -> store.appendBlock("t", new TurnBlock.Responding(0, T0, "x")));
      unavailable(() -> store.finalizeTurn("t", TurnStatus.ERROR, null, "x", T0));
      unavailable(() -> store.claimTurn("t", 2));
      unavailable(() -> store.appendBlock("t", new TurnBlock.Responding(0, T0, "x"), 2));
      unavailable(() -> store.finalizeTurn("t", TurnStatus.ERROR, null, "x", T0, 2));

      // The database comes up on the same port: the same store works, indexes included.
      server = new MongoServer(new MemoryBackend());
      server.bind("127.0.0.1", port);
      awaitSuccess(() -> store.createUser(ada), Duration.ofSeconds(20));
      assertThat(store.findUserByName("ada")).contains(ada);
      assertThatThrownBy(() -> store.createUser(new User(Ids.next(), "ada", null, T0)))
          .isInstanceOfSatisfying(StoreException.class,
              x -> assertThat(x.reason()).isEqualTo(StoreException.Reason.DUPLICATE));
      ChatTurn turn = ChatTurn.start(Ids.next(), "s", ada.id(), 0, "p", "build", T0);
      store.createTurn(turn);
      store.appendBlock(turn.id(), new TurnBlock.Responding(0, T0, "back"));
      assertThat(store.findTurn(turn.id()).orElseThrow().blocks()).hasSize(1);
    } finally {
      store.close();
      if (server != null) {
        server.shutdownNow();
      }
    }
  }

  @Test
  void aServerThatAcceptsButNeverAnswersIsUnavailableToo() throws Exception {
    // The kernel completes the TCP handshake for the backlog; nobody ever reads or writes.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = silent.getLocalPort();
      try (MongoChatStore store = MongoChatStore.builder()
          .connectionString("mongodb://127.0.0.1:" + port)
          .database("gadget_silent")
          .serverSelectionTimeout(SELECTION)
          .connectTimeout(Duration.ofMillis(500))
          .readTimeout(Duration.ofMillis(500))
          .build()) {
        StoreException e = unavailable(() -> store.findUser("x"));
        assertThat(e.getMessage()).contains("127.0.0.1:" + port);
      }
    }
  }

  @Test
  void concurrentCallersAllGetUnavailableWithoutQueueingBehindEachOther() throws Exception {
    int port = closedPort();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (MongoChatStore store = MongoChatStore.builder()
        .connectionString("mongodb://127.0.0.1:" + port)
        .serverSelectionTimeout(SELECTION)
        .build()) {
      long start = System.nanoTime();
      List<Future<StoreException.Reason>> results = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        results.add(pool.submit(() -> {
          try {
            store.listDrones("u");
            return null;
          } catch (StoreException e) {
            return e.reason();
          }
        }));
      }
      for (Future<StoreException.Reason> f : results) {
        assertThat(f.get(BOUND_MS * 2, TimeUnit.MILLISECONDS))
            .isEqualTo(StoreException.Reason.UNAVAILABLE);
      }
      // Eight waits of 400 ms one after the other would take 3.2 s or more.
      assertThat(millisSince(start)).isLessThan(3_000);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theUriTimeoutAppliesUnlessTheBuilderSetsOne() throws Exception {
    int port = closedPort();
    try (MongoChatStore store = MongoChatStore.builder()
        .connectionString("mongodb://127.0.0.1:" + port + "/fromuri?serverSelectionTimeoutMS=300")
        .build()) {
      assertThat(store.databaseName()).isEqualTo("fromuri");
      assertThat(unavailable(() -> store.findUser("x")).getMessage()).contains("within 300 ms");
    }
    try (MongoChatStore store = MongoChatStore.builder()
        .connectionString("mongodb://127.0.0.1:" + port + "/?serverSelectionTimeoutMS=300")
        .serverSelectionTimeout(Duration.ofMillis(200))
        .build()) {
      assertThat(store.databaseName()).isEqualTo("gadget");
      assertThat(unavailable(() -> store.findUser("x")).getMessage()).contains("within 200 ms");
    }
  }

  @Test
  void credentialsNeverShowInMessagesOrToString() throws Exception {
    int port = closedPort();
    try (MongoChatStore store = MongoChatStore.builder()
        .connectionString("mongodb://ada:s3cr3t-pw@127.0.0.1:" + port + "/db?authSource=admin")
        .serverSelectionTimeout(SELECTION)
        .build()) {
      assertThat(store.toString()).contains("127.0.0.1:" + port).doesNotContain("s3cr3t");
      StoreException e = unavailable(() -> store.findUser("x"));
      assertThat(e.getMessage()).doesNotContain("s3cr3t");
    }
    assertThatThrownBy(() -> MongoChatStore.builder()
        .connectionString("mongodb://ada:s3cr3t-pw@127.0.0.1:notaport").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cr3t");
  }

  private static StoreException unavailable(ThrowingCallable call) {
    long start = System.nanoTime();
    StoreException e = catchThrowableOfType(StoreException.class, call);
    assertThat(e).as("a StoreException").isNotNull();
    assertThat(e.reason()).isEqualTo(StoreException.Reason.UNAVAILABLE);
    assertThat(millisSince(start)).isLessThan(BOUND_MS);
    return e;
  }

  private static void awaitSuccess(Runnable call, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      try {
        call.run();
        return;
      } catch (StoreException e) {
        if (e.reason() != StoreException.Reason.UNAVAILABLE || System.nanoTime() > deadline) {
          throw e;
        }
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
    }
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static long millisSince(long nanoTime) {
    return (System.nanoTime() - nanoTime) / 1_000_000;
  }
}
