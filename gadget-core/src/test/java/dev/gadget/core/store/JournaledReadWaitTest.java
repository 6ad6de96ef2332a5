package dev.gadget.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.User;
import dev.gadget.core.store.internal.Journal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read waits for the syncs of the writes it may reflect, no others: with the disk holding a
 * running turn's block write back, the user, the project, the session and another session's
 * turns are read at once, while that turn's own session waits until the block is on disk.
 */
class JournaledReadWaitTest {
  static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");
  @TempDir Path dir;
  final CountDownLatch disk = new CountDownLatch(1);
  final CountDownLatch held = new CountDownLatch(1);

  @AfterEach
  void release() {
    Journal.beforeSync = null;
    disk.countDown();
  }

  @Test
  void onlyTheReadsThatMayReflectAPendingWriteWaitForIt() throws Exception {
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      User u = new User(Ids.next(), "ada", "Ada", T0);
      s.createUser(u);
      Project p = new Project(Ids.next(), u.id(), "p", "p", "/p.git", T0);
      s.createProject(p);
      ChatSession busy = new ChatSession(Ids.next(), u.id(), p.id(), "busy", null, T0);
      ChatSession quiet = new ChatSession(Ids.next(), u.id(), p.id(), "quiet", null, T0);
      s.createSession(busy);
      s.createSession(quiet);
      ChatTurn running = ChatTurn.start(Ids.next(), busy.id(), u.id(), 0, "go", "build", T0);
      s.createTurn(running);
      s.createTurn(ChatTurn.start(Ids.next(), quiet.id(), u.id(), 0, "hi", "build", T0));

      // from now on the disk confirms nothing until released
      Journal.beforeSync = () -> {
        held.countDown();
        try {
          disk.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      };
      CompletableFuture<Void> block = CompletableFuture.runAsync(() -> s.appendBlock(
          running.id(), new TurnBlock.Responding(0, T0, "streaming")));
      assertThat(held.await(10, TimeUnit.SECONDS)).as("the sync is held").isTrue();

      // answered while the block's sync waits
      assertThat(s.findUser(u.id())).isPresent();
      assertThat(s.findProject(p.id())).isPresent();
      assertThat(s.findSession(busy.id())).isPresent();
      assertThat(s.listSessions(u.id(), p.id())).hasSize(2);
      assertThat(s.listTurns(quiet.id())).hasSize(1);
      assertThat(block).isNotDone();

      // the busy session's turns may hold the block: they wait for its sync
      CompletableFuture<List<ChatTurn>> turns = CompletableFuture.supplyAsync(
          () -> s.listTurns(busy.id()));
      CompletableFuture<Optional<ChatTurn>> turn = CompletableFuture.supplyAsync(
          () -> s.findTurn(running.id()));
      // both wait (within a deadline they have not answered) until the disk confirms
      assertThatThrownBy(() -> turns.get(300, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      assertThatThrownBy(() -> turn.get(300, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      disk.countDown();
      assertThat(turns.get(10, TimeUnit.SECONDS).get(0).blocks()).hasSize(1);
      assertThat(turn.get(10, TimeUnit.SECONDS).orElseThrow().blocks()).hasSize(1);
      block.get(10, TimeUnit.SECONDS);
    }
  }
}
