package dev.gadget.core.stream;

import dev.gadget.core.model.TurnBlock;

/**
 * Receives each block a {@link BlockAggregator} completes, once, in order. A store writes one
 * block per call, so it writes once per block rather than once per token.
 */
@FunctionalInterface
public interface BlockSink {
  /** Called with a finished block. Runs on the thread that fed the aggregator. */
  void accept(TurnBlock block);
}
