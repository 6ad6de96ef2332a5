package dev.gadget.acp.internal;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.stream.BlockAggregator;
import dev.gadget.core.stream.StreamChunk;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores one turn of a session as the server stores a drone's: the turn when it starts, each
 * finished block (thinking, text, tool call with its result, compaction) as it finishes, and its
 * end. A compaction is stored with the turn as its kept point when the loop left it open, as the
 * server does, so that the next turn's context starts from it. The writes are made in order on
 * the session's writer thread, off the loop's path (a synced write must not hold up the stream);
 * {@link #finish} waits for them. A store that fails is said once in the log and the turn goes
 * on: the editor's chat matters more than its record. At most {@link #MAX_PENDING} writes wait:
 * past that the turn waits for the store (at most {@link #WRITES}, then a write is left out, said
 * once), so a store slower than the model holds the turn back rather than the heap.
 */
final class TurnRecorder implements AgentListener {
  private static final Logger log = LoggerFactory.getLogger(TurnRecorder.class);
  /** The error stored for a turn whose process ended while it ran. */
  static final String PROCESS_ENDED = "the Gadget process ended during this turn";
  /** How long the end of a turn waits for its writes. */
  static final Duration WRITES = Duration.ofSeconds(30);
  /** The most writes that wait for the store; the next waits for them. */
  static final int MAX_PENDING = 256;

  private final ChatStore store;
  private final Executor writer;
  private final String turnId;
  private final BlockAggregator blocks;
  private final AtomicBoolean failed = new AtomicBoolean();
  /** Writes chained and not yet made. */
  private final AtomicInteger pending = new AtomicInteger();
  /** The store did not catch up within {@link #WRITES}: writes past the bound are left out. */
  private boolean stuck;
  private CompletableFuture<Void> written;

  private TurnRecorder(ChatStore store, Executor writer, ChatTurn turn) {
    this.store = store;
    this.writer = writer;
    this.turnId = turn.id();
    pending.incrementAndGet();
    this.written = CompletableFuture.runAsync(() -> write(() -> store.createTurn(turn)), writer);
    this.blocks = new BlockAggregator(block -> later(() -> store.appendBlock(turnId, block)));
  }

  /**
   * Records a new turn of {@code sessionId} in position {@code seq}, its writes made on
   * {@code writer} (one thread: they keep their order).
   */
  static TurnRecorder start(ChatStore store, Executor writer, String sessionId, long seq,
      String prompt, String model) {
    ChatTurn turn = ChatTurn.start(dev.gadget.core.Ids.next(), sessionId, SessionStore.USER_ID,
        seq, prompt, "build", Instant.now())
        .withModel(new TurnModel(TurnModel.DEFAULT_PROVIDER, "editor", model));
    return new TurnRecorder(store, writer, turn);
  }

  /** Chains {@code write} after the others; called under this recorder's lock. */
  private void later(Runnable write) {
    if (pending.get() >= MAX_PENDING && (stuck || !drained())) {
      stuck = true; // the next writes are left out at once until the store catches up
      failed(new IllegalStateException(MAX_PENDING + " writes waited more than "
          + WRITES.toSeconds() + " s"));
      return;
    }
    stuck = false;
    pending.incrementAndGet();
    written = written.thenRunAsync(() -> write(write), writer);
  }

  /** Waits (at most {@link #WRITES}) until the writes chained so far are made. */
  private boolean drained() {
    try {
      written.get(WRITES.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
  }

  private void write(Runnable write) {
    try {
      write.run();
    } catch (RuntimeException e) {
      failed(e);
    } finally {
      pending.decrementAndGet();
    }
  }

  /** How many writes wait now (tests). */
  int pending() {
    return pending.get();
  }

  /**
   * Ends the turns of {@code sessionId} that a process left running (it was killed, or the editor
   * ended it mid-turn): each is stored as failed, saying so.
   */
  static void endAbandoned(ChatStore store, String sessionId) {
    for (ChatTurn t : store.listTurns(sessionId)) {
      if (t.status() == TurnStatus.PROCESSING) {
        store.finalizeTurn(t.id(), TurnStatus.ERROR, t.stats(), PROCESS_ENDED, Instant.now());
      }
    }
  }

  @Override
  public synchronized void onChunk(StreamChunk chunk) {
    if (chunk instanceof StreamChunk.CompactionChunk c) {
      chunk = new StreamChunk.CompactionChunk(c.compaction().withKeptTurnId(turnId));
    }
    try {
      blocks.accept(chunk);
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  /**
   * Waits until what the turn did so far is stored (its finished blocks, not the one still
   * streaming): before the turn waits on the editor, so that a process ended meanwhile loses
   * nothing it had done.
   */
  void flush() {
    CompletableFuture<Void> all;
    synchronized (this) {
      all = written;
    }
    await(all);
  }

  /** Flushes the last block, stores how the turn ended and waits for the turn's writes. */
  void finish(AgentOutcome outcome) {
    CompletableFuture<Void> all;
    synchronized (this) {
      blocks.complete();
      later(() -> store.finalizeTurn(turnId, outcome.status().toTurnStatus(), outcome.stats(),
          outcome.status() == AgentOutcome.Status.FINISHED ? null : outcome.message(),
          Instant.now()));
      all = written;
    }
    await(all);
  }

  private void await(CompletableFuture<Void> all) {
    try {
      all.get(WRITES.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      failed(new IllegalStateException("its writes did not end within " + WRITES.toSeconds()
          + " s", e));
    }
  }

  private void failed(RuntimeException e) {
    if (failed.compareAndSet(false, true)) {
      log.warn("turn {} could not be stored, so a later session/load will not show all of it: "
          + "{}", turnId, e.getMessage());
    }
  }
}
