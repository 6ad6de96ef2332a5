package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running turn's block writes, made in order on the store's writer threads instead of on
 * the thread that relays the turn's stream: a slow store delays what waits for the write (the
 * turn's end, which the drone's acknowledgement waits for, and a tool call, told to pages once
 * the block it finishes is stored), never the tokens to pages.
 *
 * <p>Saving a block that waits to be written replaces the waiting version (a checkpoint of the
 * open block and the finished block make one write). Every block asked for is kept here while
 * the turn lives, for a page's snapshot ({@link #withBlocks}). At most {@link #MAX_PENDING}
 * writes wait; past
 * that the relaying thread waits for room, at most {@link #WAIT}.
 */
final class TurnWrites {
  private static final java.util.concurrent.atomic.AtomicInteger WRITER_THREADS =
      new java.util.concurrent.atomic.AtomicInteger();

  /** A thread of the live turns' store writers ({@link LiveTurns}). */
  static Thread writerThread(Runnable r) {
    Thread t = new Thread(r, "gadget-store-writer-" + WRITER_THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  }

  private static final Logger log = LoggerFactory.getLogger(TurnWrites.class);

  /** The most writes that wait for one turn. */
  static final int MAX_PENDING = 4_096;
  /** How long the relay waits for room, and the turn's end for its writes. */
  static final Duration WAIT = Duration.ofSeconds(30);
  /** Writes one task makes before it lets another turn's writes go first. */
  private static final int BATCH = 64;

  private final String turnId;
  private final ChatStore store;
  private final Executor writers;
  /** The writes waiting, oldest first. Guarded by this. */
  private final ArrayDeque<Write> queue = new ArrayDeque<>();
  /** Whether a writer task runs or is scheduled for this turn. Guarded by this. */
  private boolean draining;
  /**
   * Every block asked for, by seq: the newest version of each, written or not. Kept while the
   * turn lives, so a page's snapshot can lay them over what it read from the store whenever it
   * read it (a block written meanwhile is here as well).
   */
  private final Map<Integer, TurnBlock> blocks = new ConcurrentHashMap<>();
  private volatile Fencing fencing = Fencing.NONE;

  /** In a cluster, how the turn's writes are fenced ({@link TurnFence#writes}). */
  interface Fencing {
    /** None: a single server's turn. */
    Fencing NONE = new Fencing() {
      @Override
      public boolean lost() {
        return false;
      }

      @Override
      public StoreException write(Runnable plain, LongConsumer fenced) {
        plain.run();
        return null;
      }

      @Override
      public void refused() {}
    };

    /**
     * Asked before each run of writes: true when this node lost the turn's drone to another
     * (which writes the turn now): what waits is dropped, nothing more is written.
     */
    boolean lost();

    /**
     * Makes one write, {@code plain} or {@code fenced} with the turn's fence ({@link
     * TurnFence#write}); null once made, else the store's refusal for a greater fence.
     */
    StoreException write(Runnable plain, LongConsumer fenced);

    /** The store refused a write for its fence: what waits is dropped; the turn is let go. */
    void refused();
  }

  /** A block to append (the first time it is stored) or save over its stored version. */
  private static final class Write {
    final boolean append;
    TurnBlock block;

    Write(boolean append, TurnBlock block) {
      this.append = append;
      this.block = block;
    }
  }

  TurnWrites(String turnId, ChatStore store, Executor writers) {
    this.turnId = turnId;
    this.store = store;
    this.writers = writers;
  }

  /** In a cluster: how the turn's writes are fenced. */
  void fencedBy(Fencing fencing) {
    this.fencing = fencing;
  }

  /** Appends {@code block}, a block the store has not seen. */
  void append(TurnBlock block) {
    enqueue(true, block);
  }

  /** Saves {@code block} over the stored (or waiting) block with its seq. */
  void save(TurnBlock block) {
    enqueue(false, block);
  }

  private void enqueue(boolean append, TurnBlock block) {
    synchronized (this) {
      Write last = queue.peekLast();
      if (!append && last != null && last.block.seq() == block.seq()) {
        last.block = block; // not taken yet: the newer version replaces it
        blocks.put(block.seq(), block);
        return;
      }
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (queue.size() >= MAX_PENDING) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !waitNanos(left)) {
          log.error("the store has not taken a write of turn {} for {} s; block {} is not stored",
              turnId, WAIT.toSeconds(), block.seq());
          return;
        }
      }
      queue.add(new Write(append, block));
      blocks.put(block.seq(), block);
      if (draining) {
        return;
      }
      draining = true;
    }
    schedule();
  }

  private void schedule() {
    try {
      writers.execute(this::drain);
    } catch (RejectedExecutionException closed) {
      drain(); // the server is closing: write here rather than lose it
    }
  }

  private void drain() {
    if (fencing.lost()) {
      dropAll();
      return;
    }
    for (int i = 0; ; i++) {
      Write w;
      TurnBlock block;
      synchronized (this) {
        if (i == BATCH && !queue.isEmpty()) {
          break;
        }
        w = queue.poll();
        notifyAll(); // room in the queue, or (when empty) the turn's end may go on
        if (w == null) {
          draining = false;
          return;
        }
        block = w.block;
      }
      if (!write(w.append, block)) {
        dropAll();
        fencing.refused();
        return;
      }
    }
    schedule();
  }

  /** Drops what waits: the node that holds the turn's drone now writes the turn. */
  private synchronized void dropAll() {
    log.info("turn {} is written by the node that holds its drone now: {} block writes "
        + "waiting here are dropped", turnId, queue.size());
    queue.clear();
    draining = false;
    notifyAll();
  }

  /** Writes one block; false when the store refused it for its fence. */
  private boolean write(boolean append, TurnBlock block) {
    try {
      StoreException refused = append
          ? fencing.write(() -> store.appendBlock(turnId, block),
              fence -> store.appendBlock(turnId, block, fence))
          : fencing.write(() -> store.saveBlock(turnId, block),
              fence -> store.saveBlock(turnId, block, fence));
      if (refused != null) {
        log.info("block {} of turn {} is not stored: {}", block.seq(), turnId,
            refused.getMessage());
        return false;
      }
    } catch (RuntimeException e) {
      // A StoreException, or a store's bug. The pages still got the stream; the block is
      // lost from the store only.
      log.error("could not store block {} of turn {}: {}", block.seq(), turnId, e.getMessage());
    }
    return true;
  }

  /**
   * Waits until every write asked for so far is made, at most {@link #WAIT}; false if the store
   * took longer.
   */
  synchronized boolean flush() {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (draining) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || !waitNanos(left)) {
        log.error("the store has not finished the writes of turn {} within {} s", turnId,
            WAIT.toSeconds());
        return false;
      }
    }
    return true;
  }

  private boolean waitNanos(long nanos) {
    try {
      wait(Math.max(1, nanos / 1_000_000));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** A copy of every block asked for so far, the newest version of each. */
  Map<Integer, TurnBlock> blocks() {
    return new TreeMap<>(blocks);
  }

  /**
   * {@code stored} without its blocks from {@code fromBlock} on (when not -1): a turn taken back
   * after a restart, whose stored blocks from there on are stale until its replay rewrites them.
   */
  static ChatTurn before(ChatTurn stored, int fromBlock) {
    if (fromBlock < 0 || stored.blocks().stream().noneMatch(b -> b.seq() >= fromBlock)) {
      return stored;
    }
    List<TurnBlock> blocks = stored.blocks().stream().filter(b -> b.seq() < fromBlock).toList();
    List<ToolCall> calls = blocks.stream().filter(b -> b instanceof TurnBlock.Tool)
        .map(b -> ((TurnBlock.Tool) b).content()).toList();
    return new ChatTurn(stored.id(), stored.sessionId(), stored.userId(), stored.seq(),
        stored.status(), stored.prompt(), stored.mode(), blocks, calls, stored.stats(),
        stored.createdAt(), stored.finishedAt(), stored.error(), stored.droneId(), stored.model());
  }

  /**
   * {@code stored} with {@code asked} (from {@link #blocks()}) in place of the stored blocks
   * with the same seq, or added in seq order: the turn as it is once every write asked for is
   * made, however many of them were made when the store was read.
   */
  static ChatTurn withBlocks(ChatTurn stored, Map<Integer, TurnBlock> asked) {
    if (asked.isEmpty()) {
      return stored;
    }
    TreeMap<Integer, TurnBlock> blocks = new TreeMap<>();
    stored.blocks().forEach(b -> blocks.put(b.seq(), b));
    List<ToolCall> calls = new ArrayList<>(stored.toolCalls());
    asked.forEach((seq, b) -> {
      TurnBlock before = blocks.put(seq, b);
      if (before == null && b instanceof TurnBlock.Tool tool) {
        calls.add(tool.content());
      }
    });
    return new ChatTurn(stored.id(), stored.sessionId(), stored.userId(), stored.seq(),
        stored.status(), stored.prompt(), stored.mode(), new ArrayList<>(blocks.values()), calls,
        stored.stats(), stored.createdAt(), stored.finishedAt(), stored.error(),
        stored.droneId(), stored.model());
  }

  /**
   * {@code turn} without its block of {@code open}'s seq (the open block's checkpoint), or as it
   * is when {@code open} is null or has none.
   */
  static ChatTurn without(ChatTurn turn, TurnBlock open) {
    if (open == null || turn.blocks().stream().noneMatch(b -> b.seq() == open.seq())) {
      return turn;
    }
    List<TurnBlock> blocks = new ArrayList<>(turn.blocks());
    blocks.removeIf(b -> b.seq() == open.seq());
    return new ChatTurn(turn.id(), turn.sessionId(), turn.userId(), turn.seq(), turn.status(),
        turn.prompt(), turn.mode(), blocks, turn.toolCalls(), turn.stats(), turn.createdAt(),
        turn.finishedAt(), turn.error(), turn.droneId(), turn.model());
  }
}
