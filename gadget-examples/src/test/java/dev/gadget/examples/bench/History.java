package dev.gadget.examples.bench;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/** The history a store holds before a run: other users' finished turns. */
final class History {
  /** Stored turns: 1,000 sessions of 10 turns, 10 sessions to a user. */
  static final int TURNS = 10_000;
  private static final Instant T0 = Instant.parse("2026-11-01T09:00:00Z");

  private History() {}

  /** Fills {@code store} with {@link #TURNS} finished turns of three blocks each; returns it. */
  static ChatStore fill(ChatStore store) throws Exception {
    long start = System.nanoTime();
    List<ChatSession> sessions = new ArrayList<>();
    for (int u = 0; u < TURNS / 100; u++) {
      User user = new User(Ids.next(), "history" + Ids.next(), "History", T0);
      store.createUser(user);
      Project project = new Project(Ids.next(), user.id(), "old", "old", "/old.git", T0);
      store.createProject(project);
      for (int s = 0; s < 10; s++) {
        ChatSession session = new ChatSession(Ids.next(), user.id(), project.id(), "old", null,
            T0);
        store.createSession(session);
        sessions.add(session);
      }
    }
    // Many writers at once: the journaled store's syncs are shared between them.
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (ChatSession s : sessions) {
        done.add(pool.submit(() -> {
          for (int n = 0; n < 10; n++) {
            store.createTurn(new ChatTurn(Ids.next(), s.id(), s.userId(), n,
                TurnStatus.FINISHED, "an older prompt " + n, "build", List.of(
                    new TurnBlock.Thinking(0, T0, "thinking it over ".repeat(8)),
                    new TurnBlock.Responding(1, T0, "an older answer, ".repeat(40))),
                List.of(), TurnStats.EMPTY, T0, T0, null, null));
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    System.out.printf("stored %,d turns of history in %s in %.1f s%n", TURNS,
        store.getClass().getSimpleName(), (System.nanoTime() - start) / 1e9);
    return store;
  }

  /** {@code dir}, emptied. */
  static Path fresh(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    return dir;
  }
}
