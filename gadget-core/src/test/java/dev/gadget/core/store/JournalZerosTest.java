package dev.gadget.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.Ids;
import dev.gadget.core.model.User;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal writes its records over zeros written ahead (so a sync flushes data, not the
 * file's size): a crash leaves those zeros after the records, and may leave later pages of an
 * unacknowledged write on disk with an earlier one still zeros. Nothing from the first zero on
 * was acknowledged, so the store opens there, quietly when all that follows is zeros.
 */
class JournalZerosTest {
  private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

  @TempDir Path dir;
  @TempDir Path crashed;

  @Test
  void aCopyTakenWhileOpenHasZerosAfterItsRecordsAndOpensQuietly() throws IOException {
    Path journal = dir.resolve("journal-000001.jsonl");
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      s.createUser(user("ada"));
      byte[] bytes = Files.readAllBytes(journal);
      int records = lastNewline(bytes) + 1;
      assertThat(bytes.length).as("zeros written ahead").isGreaterThan(records + 4096);
      assertThat(Arrays.copyOfRange(bytes, records, bytes.length)).containsOnly(0);
      copy(dir, crashed); // what a kill -9 leaves on disk
    }
    byte[] closed = Files.readAllBytes(journal);
    assertThat(closed).as("closed: cut to its records").isNotEmpty();
    assertThat(lastNewline(closed)).isEqualTo(closed.length - 1);

    String log = JournaledChatStoreTest.stderrOf(() -> {
      try (JournaledChatStore s = JournaledChatStore.open(crashed)) {
        assertThat(s.findUserByName("ada")).isPresent();
        s.createUser(user("bob"));
      }
    });
    assertThat(log).doesNotContain("WARN");
    try (JournaledChatStore s = JournaledChatStore.open(crashed)) {
      assertThat(s.findUserByName("ada")).isPresent();
      assertThat(s.findUserByName("bob")).isPresent();
    }
  }

  @Test
  void dropsEverythingFromAPageTheDiskNeverTookEvenWhenLaterPagesArrived() throws IOException {
    Path journal = dir.resolve("journal-000001.jsonl");
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      s.createUser(user("ada"));
      s.createUser(user("bob"));
      s.createUser(user("carl"));
    }
    byte[] bytes = Files.readAllBytes(journal);
    int carl = lastNewline(Arrays.copyOf(bytes, bytes.length - 1)) + 1;
    int bob = lastNewline(Arrays.copyOf(bytes, carl - 1)) + 1;
    Arrays.fill(bytes, bob, carl, (byte) 0); // bob's page lost, carl's written
    Files.write(journal, bytes);

    String log = JournaledChatStoreTest.stderrOf(() -> {
      try (JournaledChatStore s = JournaledChatStore.open(dir)) {
        assertThat(s.findUserByName("ada")).isPresent();
        assertThat(s.findUserByName("bob")).isEmpty();
        assertThat(s.findUserByName("carl")).as("after the lost page: never acknowledged")
            .isEmpty();
        s.createUser(user("dora"));
      }
    });
    assertThat(log).contains("WARN", "The end of " + journal, "byte " + bob,
        (bytes.length - bob) + " bytes", "never acknowledged: dropping it");
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      assertThat(s.findUserByName("ada")).isPresent();
      assertThat(s.findUserByName("dora")).isPresent();
      assertThat(s.findUserByName("carl")).isEmpty();
    }
  }

  private static User user(String name) {
    return new User(Ids.next(), name, name, T0);
  }

  private static int lastNewline(byte[] bytes) {
    for (int i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
  }
}
