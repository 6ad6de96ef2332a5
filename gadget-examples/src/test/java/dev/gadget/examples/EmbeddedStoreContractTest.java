package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.Ids;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ChatStoreContract;
import dev.gadget.core.store.Tokens;
import dev.gadget.store.mongo.MongoChatStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's default store (MongoChatStore on mongo-java-server with its H2 file backend)
 * passes the ChatStore compatibility kit, keeps its data across restarts, and refuses a second
 * server on the same data directory.
 */
class EmbeddedStoreContractTest extends ChatStoreContract {
  @TempDir static Path shared;
  static EmbeddedMongo mongo;
  static final AtomicInteger databases = new AtomicInteger();

  @BeforeAll
  static void startMongo() {
    mongo = EmbeddedMongo.start(shared.resolve("data"));
  }

  @AfterAll
  static void stopMongo() {
    mongo.close();
  }

  @Override
  protected ChatStore newStore() {
    return MongoChatStore.builder().connectionString(mongo.connectionString())
        .database("contract_" + databases.incrementAndGet()).build();
  }

  @Test
  void keepsItsDataAcrossRestartsAndLocksItsDirectory(@TempDir Path dir) throws Exception {
    String token;
    try (Stores.Opened first = Stores.embedded(dir, "gadget")) {
      User u = new User(Ids.next(), "ann", "Ann", Instant.now());
      first.store().createUser(u);
      token = new Tokens(first.store()).issue(u.id(), TokenKind.USER, "page").token();
      assertThat(EmbeddedMongo.runningUri(dir)).contains(first.embedded().connectionString());
      assertThatThrownBy(() -> Stores.embedded(dir, "gadget"))
          .isInstanceOf(CommandException.class)
          .hasMessageContaining("is in use by another Gadget server");
    }
    assertThat(EmbeddedMongo.runningUri(dir)).isEmpty();
    assertThat(Files.exists(dir.resolve(EmbeddedMongo.DATA_FILE))).isTrue();
    assertThat(Files.readString(dir.resolve(EmbeddedMongo.DATA_FILE),
        java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain(token);
    try (Stores.Opened again = Stores.embedded(dir, "gadget")) {
      assertThat(again.store().findUserByName("ann")).isPresent();
      assertThat(new Tokens(again.store()).authenticate(token, TokenKind.USER)).isPresent();
    }
  }
}
