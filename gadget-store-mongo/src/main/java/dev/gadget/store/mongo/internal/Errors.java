package dev.gadget.store.mongo.internal;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoException;
import com.mongodb.MongoExecutionTimeoutException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.MongoWriteException;
import com.mongodb.bulk.BulkWriteError;
import dev.gadget.core.spi.StoreException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns driver exceptions into {@link StoreException}s a caller can act on, and logs an outage
 * once: WARN when the database first becomes unreachable, DEBUG while it stays so, INFO when it
 * answers again. Never logs credentials: only the host list is named. Thread-safe.
 */
public final class Errors {
  private static final Logger log = LoggerFactory.getLogger("dev.gadget.store.mongo");

  /** The server's duplicate key error code; {@link ErrorCategory} also knows the legacy ones. */
  private static final int DUPLICATE_KEY = 11000;

  /** The label the server puts on a write worth retrying (the driver keeps its constant private). */
  private static final String RETRYABLE_WRITE_ERROR = "RetryableWriteError";

  private final String where;
  private final Duration serverSelectionTimeout;
  private final AtomicBoolean down = new AtomicBoolean();

  /**
   * @param where the hosts and database, for messages (no credentials)
   * @param serverSelectionTimeout how long the driver waits for a server, for messages; or
   *     {@code null} when unknown
   */
  public Errors(String where, Duration serverSelectionTimeout) {
    this.where = where;
    this.serverSelectionTimeout = serverSelectionTimeout;
  }

  /** Notes that an operation reached the database. */
  public void reached() {
    if (down.get() && down.compareAndSet(true, false)) {
      log.info("MongoDB at {} answers again", where);
    }
  }

  /**
   * The {@link StoreException} for a driver failure of {@code operation}.
   *
   * @param operation what the store was doing, such as {@code "createUser"}
   * @param what the entity concerned, such as {@code "user ada"}, for DUPLICATE messages
   */
  public StoreException translate(String operation, String what, RuntimeException e) {
    if (isDuplicateKey(e)) {
      return new StoreException(StoreException.Reason.DUPLICATE,
          what + " already exists (" + operation + ": duplicate key)", e);
    }
    if (isUnavailable(e)) {
      if (e instanceof MongoInterruptedException) {
        Thread.currentThread().interrupt();
      }
      StoreException out = new StoreException(StoreException.Reason.UNAVAILABLE,
          "MongoDB at " + where + " is unavailable during " + operation + ": " + reason(e)
              + "; retry later", e);
      if (down.compareAndSet(false, true)) {
        log.warn("{}", out.getMessage());
      } else {
        log.debug("{}", out.getMessage(), e);
      }
      return out;
    }
    String detail = e instanceof MongoServerException s
        ? "server error " + s.getCode() + ": " + s.getMessage()
        : e.getClass().getSimpleName() + ": " + e.getMessage();
    return new StoreException(StoreException.Reason.FAILED,
        "MongoDB " + operation + " failed at " + where + " (" + detail + ")", e);
  }

  /** Whether {@code e} is the server refusing a duplicate key (code 11000). */
  public static boolean isDuplicateKey(RuntimeException e) {
    if (e instanceof MongoWriteException w) {
      return w.getError().getCategory() == ErrorCategory.DUPLICATE_KEY;
    }
    if (e instanceof MongoBulkWriteException b) {
      for (BulkWriteError error : b.getWriteErrors()) {
        if (error.getCategory() == ErrorCategory.DUPLICATE_KEY) {
          return true;
        }
      }
      return false;
    }
    return e instanceof MongoServerException s
        && (s.getCode() == DUPLICATE_KEY
            || ErrorCategory.fromErrorCode(s.getCode()) == ErrorCategory.DUPLICATE_KEY);
  }

  /** Whether {@code e} means the database could not be reached or answered too late. */
  public static boolean isUnavailable(RuntimeException e) {
    if (!(e instanceof MongoException m)) {
      return false;
    }
    if (e instanceof MongoWriteConcernException) {
      return m.hasErrorLabel(RETRYABLE_WRITE_ERROR);
    }
    return e instanceof MongoTimeoutException
        || e instanceof MongoSocketException
        || e instanceof MongoExecutionTimeoutException
        || e instanceof MongoNotPrimaryException
        || e instanceof MongoNodeIsRecoveringException
        || e instanceof MongoInterruptedException
        || m.hasErrorLabel(RETRYABLE_WRITE_ERROR)
        || m.hasErrorLabel(MongoException.TRANSIENT_TRANSACTION_ERROR_LABEL);
  }

  private String reason(RuntimeException e) {
    if (e instanceof MongoTimeoutException) {
      return serverSelectionTimeout == null
          ? "no server answered in time"
          : "no server answered within " + serverSelectionTimeout.toMillis() + " ms";
    }
    if (e instanceof MongoSocketException) {
      return "connection failed (" + e.getClass().getSimpleName() + ")";
    }
    if (e instanceof MongoInterruptedException) {
      return "interrupted while waiting";
    }
    return e.getClass().getSimpleName();
  }
}
