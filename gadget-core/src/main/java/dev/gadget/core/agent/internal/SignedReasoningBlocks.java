package dev.gadget.core.agent.internal;

import dev.gadget.core.llm.ThinkingBlock;
import dev.gadget.core.model.SignedReasoning;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts between a client's {@link ThinkingBlock}s and the stored {@link SignedReasoning} that
 * carries them from one turn to the next, keeping each block's provider kind and its bytes
 * unchanged.
 */
public final class SignedReasoningBlocks {
  private SignedReasoningBlocks() {}

  /** The stored form of {@code blocks}. */
  public static List<SignedReasoning> stored(List<ThinkingBlock> blocks) {
    List<SignedReasoning> out = new ArrayList<>(blocks.size());
    for (ThinkingBlock b : blocks) {
      out.add(new SignedReasoning(b.provider(), b.text(), b.signature(), b.redactedData()));
    }
    return out;
  }

  /**
   * The blocks a client sends back, from their stored form; a block whose stored provider kind
   * does not match its form (a damaged record) is left out rather than sent to the wrong provider.
   */
  public static List<ThinkingBlock> blocks(List<SignedReasoning> stored) {
    List<ThinkingBlock> out = new ArrayList<>(stored.size());
    for (SignedReasoning r : stored) {
      ThinkingBlock b = new ThinkingBlock(r.text(), r.signature(), r.data());
      if (b.provider().equals(r.provider())) {
        out.add(b);
      }
    }
    return out;
  }
}
