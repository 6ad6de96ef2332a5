package dev.gadget.acp.internal;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.stream.BlockAggregator;
import dev.gadget.core.stream.StreamChunk;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores one turn of a session as the server stores a drone's: the turn when it starts, each
 * finished block (thinking, text, tool call with its result, compaction) as it finishes, and its
 * end. A compaction is stored with the turn as its kept point when the loop left it open, as the
 * server does, so that the next turn's context starts from it. A store that fails is said once in
 * the log and the turn goes on: the editor's chat matters more than its record.
 */
final class TurnRecorder implements AgentListener {
  private static final Logger log = LoggerFactory.getLogger(TurnRecorder.class);
  /** The error stored for a turn whose process ended while it ran. */
  static final String PROCESS_ENDED = "the Gadget process ended during this turn";

  private final ChatStore store;
  private final String turnId;
  private final BlockAggregator blocks;
  private final AtomicBoolean failed = new AtomicBoolean();

  private TurnRecorder(ChatStore store, String turnId) {
    this.store = store;
    this.turnId = turnId;
    this.blocks = new BlockAggregator(block -> {
      try {
        store.appendBlock(turnId, block);
      } catch (RuntimeException e) {
        failed(e);
      }
    });
  }

  /** Stores a new turn of {@code sessionId} in position {@code seq}, and records it. */
  static TurnRecorder start(ChatStore store, String sessionId, long seq, String prompt,
      String model) {
    String id = dev.gadget.core.Ids.next();
    ChatTurn turn = ChatTurn.start(id, sessionId, SessionStore.USER_ID, seq, prompt, "build",
        Instant.now()).withModel(new TurnModel(TurnModel.DEFAULT_PROVIDER, "editor", model));
    store.createTurn(turn);
    return new TurnRecorder(store, id);
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

  /** Flushes the last block and stores how the turn ended. */
  synchronized void finish(AgentOutcome outcome) {
    blocks.complete();
    try {
      store.finalizeTurn(turnId, outcome.status().toTurnStatus(), outcome.stats(),
          outcome.status() == AgentOutcome.Status.FINISHED ? null : outcome.message(),
          Instant.now());
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  private void failed(RuntimeException e) {
    if (failed.compareAndSet(false, true)) {
      log.warn("turn {} could not be stored, so a later session/load will not show all of it: "
          + "{}", turnId, e.getMessage());
    }
  }
}
