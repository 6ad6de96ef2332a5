package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.gadget.core.spi.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.LoggerFactory;

/**
 * Runs every store operation the same way: refuses once the store is closed, makes sure the
 * indexes exist, and turns driver failures into {@link StoreException}s (noting outages and
 * recoveries in {@link Errors}). Also holds the find, list and update-by-id steps the collection
 * classes share. Thread-safe.
 */
public final class Operations {
  private final MongoDatabase db;
  private final String where;
  private final Errors errors;
  private final IndexSetup indexes;
  private volatile boolean closed;

  /** The operations on the connection's database, with its write concern. */
  public Operations(Connection connection) {
    this.db = connection.client().getDatabase(connection.database())
        .withWriteConcern(connection.writeConcern());
    this.where = connection.where();
    this.errors = new Errors(where, connection.serverSelectionTimeout());
    this.indexes = new IndexSetup(db, where, errors);
  }

  /**
   * Creates the indexes now; an unreachable database defers them to the first operation. Any
   * other failure runs {@code close} (the store's) before it is thrown.
   */
  public void createIndexesOrDefer(Runnable close) {
    try {
      call("createIndexes", "index", () -> null);
    } catch (StoreException e) {
      if (e.reason() == StoreException.Reason.UNAVAILABLE) {
        LoggerFactory.getLogger("dev.gadget.store.mongo.MongoChatStore").warn("Indexes for {} "
            + "not created yet; the first operation that reaches the database will create them",
            where);
        return;
      }
      close.run();
      throw e;
    } catch (RuntimeException e) {
      close.run();
      throw e;
    }
  }

  /** The collection called {@code name} (one of {@link Schema}'s). */
  public MongoCollection<Document> collection(String name) {
    return db.getCollection(name);
  }

  /** Refuses every later operation; returns whether this call closed it (false if it was). */
  public boolean close() {
    if (closed) {
      return false;
    }
    closed = true;
    return true;
  }

  /**
   * Runs {@code body} once the indexes exist.
   *
   * @param operation the store method, such as {@code "createUser"}, for messages
   * @param what the entity concerned, such as {@code "user ada"}, for DUPLICATE messages
   * @throws IllegalStateException if the store is closed
   * @throws StoreException for any failure of the database or of {@code body}
   */
  public <T> T call(String operation, String what, Supplier<T> body) {
    if (closed) {
      throw new IllegalStateException("MongoChatStore is closed");
    }
    try {
      indexes.ensure(operation);
      T result = body.get();
      errors.reached();
      return result;
    } catch (StoreException e) {
      if (e.reason() != StoreException.Reason.UNAVAILABLE) {
        errors.reached();
      }
      throw e;
    } catch (IllegalStateException e) {
      if (closed) {
        throw new IllegalStateException("MongoChatStore is closed", e);
      }
      throw errors.translate(operation, what, e);
    } catch (RuntimeException e) {
      throw errors.translate(operation, what, e);
    }
  }

  /** {@link #call} for a body without a result. */
  public void run(String operation, String what, Runnable body) {
    call(operation, what, () -> {
      body.run();
      return null;
    });
  }

  /** The first document matching {@code filter}, decoded. */
  public <T> Optional<T> findOne(String operation, MongoCollection<Document> collection,
      Bson filter, Function<Document, T> decode) {
    return call(operation, operation,
        () -> Optional.ofNullable(collection.find(filter).first()).map(decode));
  }

  /** Every document matching {@code filter} in {@code sort} order, decoded. */
  public <T> List<T> findAll(String operation, MongoCollection<Document> collection,
      Bson filter, Bson sort, Function<Document, T> decode) {
    return call(operation, operation, () -> {
      List<T> out = new ArrayList<>();
      for (Document d : collection.find(filter).sort(sort)) {
        out.add(decode.apply(d));
      }
      return out;
    });
  }

  /** Applies {@code update} to the document with {@code id}; NOT_FOUND if there is none. */
  public void updateExisting(String operation, MongoCollection<Document> collection,
      String what, String id, Bson update) {
    run(operation, what, () -> {
      if (collection.updateOne(eq("_id", id), update).getMatchedCount() == 0) {
        throw notFound(what);
      }
    });
  }

  /** Whether {@code collection} holds a document with {@code id} (reads only the id). */
  public static boolean exists(MongoCollection<Document> collection, String id) {
    return collection.find(eq("_id", id)).projection(new Document("_id", 1)).first() != null;
  }

  /** The NOT_FOUND failure for {@code what}, such as {@code "user u1"}. */
  public static StoreException notFound(String what) {
    return new StoreException(StoreException.Reason.NOT_FOUND, what + " not found");
  }
}
