package dev.gadget.store.mongo;

import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ChatStoreContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The core {@code ChatStore} contract against {@link MongoChatStore}: in-process
 * mongo-java-server, or the real MongoDB in {@code MONGODB_URI}. Every test gets a fresh
 * database, dropped after it.
 */
@ExtendWith(TestMongo.Extension.class)
class MongoChatStoreTest extends ChatStoreContract {
  private String database;

  @Override
  protected ChatStore newStore() {
    TestMongo mongo = TestMongo.get();
    database = mongo.newDatabase();
    return MongoChatStore.builder().mongoClient(mongo.client()).database(database).build();
  }

  @AfterEach
  void dropDatabase() {
    TestMongo.get().drop(database);
  }
}
