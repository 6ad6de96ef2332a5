package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.Ids;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ChatStoreContract;
import dev.gadget.core.store.JournaledChatStore;
import dev.gadget.core.store.Tokens;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's default store, as {@link Stores} opens it (a {@link JournaledChatStore} in the
 * data directory), passes the ChatStore compatibility kit, keeps its data across restarts,
 * refuses a second process on the same data directory, and refuses the directory of the earlier
 * embedded store rather than starting an empty one beside it.
 */
class EmbeddedStoreContractTest extends ChatStoreContract {
  @TempDir static Path shared;
  static final AtomicInteger directories = new AtomicInteger();

  @Override
  protected ChatStore newStore() {
    ChatStore s = Stores.embedded(shared.resolve("data-" + directories.incrementAndGet())).store();
    assertThat(s).isInstanceOf(JournaledChatStore.class);
    return s;
  }

  @Test
  void keepsItsDataAcrossRestartsAndLocksItsDirectory(@TempDir Path dir) throws Exception {
    String token;
    try (Stores.Opened first = Stores.embedded(dir)) {
      User u = new User(Ids.next(), "ann", "Ann", Instant.now());
      first.store().createUser(u);
      token = new Tokens(first.store()).issue(u.id(), TokenKind.USER, "page").token();
      assertThat(first.directory()).isEqualTo(dir.toAbsolutePath().normalize());
      assertThatThrownBy(() -> Stores.embedded(dir))
          .isInstanceOf(CommandException.class)
          .hasMessageContaining("the data directory " + dir.toAbsolutePath().normalize()
              + " is in use by another Gadget server or command")
          .hasMessageContaining("(pid " + ProcessHandle.current().pid() + ")");
      assertThat(Stores.embeddedIfFree(dir)).isEmpty();
    }
    for (Path f : files(dir)) {
      assertThat(Files.readString(f, StandardCharsets.ISO_8859_1)).as("%s", f)
          .doesNotContain(token);
    }
    try (Stores.Opened again = Stores.embedded(dir)) {
      assertThat(again.store().findUserByName("ann")).isPresent();
      assertThat(new Tokens(again.store()).authenticate(token, TokenKind.USER)).isPresent();
    }
  }

  @Test
  void refusesTheDirectoryOfTheEarlierEmbeddedStore(@TempDir Path dir) throws IOException {
    Files.write(dir.resolve(Stores.OLD_STORE_FILE), new byte[] {1, 2, 3});
    assertThatThrownBy(() -> Stores.embedded(dir))
        .isInstanceOf(CommandException.class)
        .hasMessageContaining("holds a store written by an earlier Gadget (gadget.mv")
        .hasMessageContaining("Start with another --data-dir (this one is left as it is)");
    assertThat(files(dir)).containsExactly(dir.resolve(Stores.OLD_STORE_FILE));
  }

  @Test
  void storeCacheIsInMegabytesAndGoesWithTheEmbeddedStoreOnly(@TempDir Path dir) {
    assertThat(Stores.storeCache(args("--store-cache", "64"))).isEqualTo(64L << 20);
    assertThat(Stores.storeCache(args())).isEqualTo(
        JournaledChatStore.Builder.DEFAULT_CACHE_BYTES);
    assertThatThrownBy(() -> Stores.storeCache(args("--store-cache", "lots")))
        .isInstanceOf(UsageException.class)
        .hasMessage("--store-cache takes a number of megabytes, 0 (no cache) or more; not "
            + "'lots'");
    assertThatThrownBy(() -> Stores.open(args("--mongo", "mongodb://127.0.0.1:1",
        "--store-cache", "8"))).isInstanceOf(UsageException.class)
        .hasMessageContaining("does not go with --mongo");
    try (Stores.Opened s = Stores.open(args("--data-dir", dir.toString(), "--store-cache",
        "0"))) {
      s.store().createUser(new User(Ids.next(), "ann", "Ann", Instant.now()));
      assertThat(s.store().findUserByName("ann")).isPresent();
    }
  }

  private static Args args(String... argv) {
    return Args.parse(Stores.OPTIONS, List.of(argv));
  }

  private static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }
}
