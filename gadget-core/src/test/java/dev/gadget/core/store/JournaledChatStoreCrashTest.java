package dev.gadget.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@link CrashWriter}) with SIGKILL at seeded random points while four of
 * its threads write to a journaled store and print every write the store acknowledged; after
 * each kill, reopens the directory and finds every acknowledged write. The kills land in appends,
 * syncs, compactions and in between; the child reopens the same directory each round.
 */
class JournaledChatStoreCrashTest {
  private static final long SEED = 20260429L;
  private static final int ROUNDS = 20;

  @TempDir Path tmp;

  @Test
  void everyAcknowledgedWriteSurvivesKillDashNine() throws Exception {
    Path dir = tmp.resolve("store");
    Random random = new Random(SEED);
    int acknowledged = 0;
    for (int round = 0; round < ROUNDS; round++) {
      int killAfter = random.nextInt(300);
      Path stderr = tmp.resolve("child-" + round + ".err");
      Process child = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
          CrashWriter.class.getName(), dir.toString())
          .redirectError(stderr.toFile()).start();
      BlockingQueue<String> lines = new LinkedBlockingQueue<>();
      Thread reader = readLines(child, lines);
      List<String> acks = new ArrayList<>();
      String first = lines.poll(60, TimeUnit.SECONDS);
      assertThat(first).as("round %d: the child's first line; its stderr:%n%s", round,
          read(stderr)).isEqualTo("ready");
      while (acks.size() < killAfter) {
        String line = lines.poll(60, TimeUnit.SECONDS);
        assertThat(line).as("round %d: ack %d of %d; stderr:%n%s", round, acks.size(),
            killAfter, read(stderr)).isNotNull().isNotEqualTo("EOF");
        acks.add(line);
      }
      child.destroyForcibly(); // SIGKILL on Linux and macOS
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      reader.join(30_000);
      for (String line; (line = lines.poll()) != null && !line.equals("EOF"); ) {
        acks.add(line);
      }
      acknowledged += acks.size();
      try (JournaledChatStore store = JournaledChatStore.open(dir)) {
        assertThat(store.findUserByName("crash-" + child.pid())).as("round %d", round)
            .isPresent();
        assertThat(missing(store, acks)).as("round %d: acknowledged writes lost", round)
            .isEmpty();
      }
    }
    assertThat(acknowledged).isGreaterThan(ROUNDS * 50);
    System.out.println("crash test: " + ROUNDS + " kills, " + acknowledged
        + " acknowledged writes, 0 lost");
    assertThat(dir.resolve("snapshot.jsonl")).as("compactions happened").exists();
  }

  /** The acknowledged writes the reopened store does not have. */
  private static List<String> missing(JournaledChatStore store, List<String> acks) {
    List<String> lost = new ArrayList<>();
    for (String ack : acks) {
      String[] f = ack.split(" ");
      boolean found = switch (f[0]) {
        case "session" -> store.findSession(f[1]).isPresent();
        case "turn" -> store.findTurn(f[1]).map(t -> t.sessionId().equals(f[2])).orElse(false);
        case "block" -> store.findTurn(f[1]).map(t -> hasBlock(t, Integer.parseInt(f[2])))
            .orElse(false);
        case "final" -> store.findTurn(f[1]).map(ChatTurn::status)
            .equals(Optional.of(TurnStatus.FINISHED));
        default -> false;
      };
      if (!found) {
        lost.add(ack);
      }
    }
    return lost;
  }

  private static boolean hasBlock(ChatTurn turn, int seq) {
    Set<Integer> seqs = new HashSet<>();
    for (TurnBlock b : turn.blocks()) {
      assertThat(seqs.add(b.seq())).as("block %d of %s stored once", b.seq(), turn.id()).isTrue();
    }
    return seqs.contains(seq);
  }

  private static Thread readLines(Process child, BlockingQueue<String> lines) {
    Thread t = new Thread(() -> {
      // Only whole lines count: a line cut short by the kill is dropped.
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        StringBuilder line = new StringBuilder();
        for (int c; (c = in.read()) >= 0; ) {
          if (c == '\n') {
            lines.add(line.toString());
            line.setLength(0);
          } else {
            line.append((char) c);
          }
        }
      } catch (IOException e) {
        // the child died mid-line: what was read is what it printed
      } finally {
        lines.add("EOF");
      }
    }, "crash-child-reader");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file) : "";
  }
}
