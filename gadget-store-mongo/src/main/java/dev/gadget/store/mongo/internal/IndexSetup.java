package dev.gadget.store.mongo.internal;

import com.mongodb.client.MongoDatabase;
import dev.gadget.core.spi.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the indexes of {@link Schema} once per store, before its first operation runs: until
 * one attempt succeeds, every operation tries again. Thread-safe without a lock, since creating
 * an index that exists does nothing.
 */
final class IndexSetup {
  private static final Logger log = LoggerFactory.getLogger(IndexSetup.class);

  private final MongoDatabase db;
  private final String where;
  private final Errors errors;
  private volatile boolean ready;

  IndexSetup(MongoDatabase db, String where, Errors errors) {
    this.db = db;
    this.where = where;
    this.errors = errors;
  }

  /**
   * Creates the indexes unless an earlier call did.
   *
   * @param operation the store operation that needs them, for messages
   * @throws StoreException UNAVAILABLE if the database cannot be reached, else FAILED
   */
  void ensure(String operation) {
    if (ready) {
      return;
    }
    // No lock: createIndexes is idempotent, and a lock would queue callers behind one timeout.
    try {
      for (String name : Schema.COLLECTIONS) {
        db.getCollection(name).createIndexes(Schema.INDEXES.get(name));
      }
    } catch (RuntimeException e) {
      if (Errors.isUnavailable(e)) {
        throw errors.translate(operation, "indexes", e);
      }
      // Not DUPLICATE even for error 11000: existing documents break a unique index.
      throw new StoreException(StoreException.Reason.FAILED, "cannot create the indexes in "
          + where + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", e);
    }
    ready = true;
    log.debug("Indexes ready in {}", where);
  }
}
