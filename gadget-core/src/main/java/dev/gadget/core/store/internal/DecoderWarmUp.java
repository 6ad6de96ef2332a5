package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Builds Jackson's readers for a finished turn's record once per process, on a daemon thread
 * started when a store opens: the first old chat a page opens then costs its disk reads (a few
 * milliseconds), not the 100 ms that Jackson takes to build its deserializers for turns, blocks
 * and stats the first time.
 */
final class DecoderWarmUp {
  private static final AtomicBoolean STARTED = new AtomicBoolean();

  private DecoderWarmUp() {}

  static void start() {
    if (!STARTED.compareAndSet(false, true)) {
      return;
    }
    Thread t = new Thread(DecoderWarmUp::run, "gadget-store-warm-up");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  private static void run() {
    Instant at = Instant.EPOCH;
    ToolCall call = new ToolCall("c", "read_file", "{\"path\":\"a\"}", "text");
    ChatTurn turn = new ChatTurn("000000000000000000000000", "s", "u", 0, TurnStatus.FINISHED,
        "p", "build", List.of(new TurnBlock.Thinking(0, at, "t"),
            new TurnBlock.Responding(1, at, "r"), new TurnBlock.Tool(2, at, call)),
        List.of(call), new TurnStats(1, 1, 0, 1, 1, 1), at, at, null, "d");
    byte[] line = RecordCodec.encode(new Change.CreateTurn(turn));
    try {
      RecordCodec.decode(line, 0, line.length - 1, Change.class);
    } catch (RecordCodec.BadRecordException | RuntimeException e) {
      // only a warm-up: the first real read builds the readers instead
    }
  }
}
