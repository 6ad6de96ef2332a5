package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ThinkingBlock;

/** Where a stream assembler hands the pieces of a reply as they are recognised. */
public interface StreamEvents {
  /** Reasoning text. */
  void thinking(String text);

  /** Reply text. */
  void text(String text);

  /** A complete tool call. */
  void toolCall(LlmToolCall call);

  /** A block of reasoning the server signed or encrypted, once it is complete. */
  default void signedThinking(ThinkingBlock block) {}

  /** Discards everything. */
  StreamEvents NONE = new StreamEvents() {
    @Override
    public void thinking(String text) {}

    @Override
    public void text(String text) {}

    @Override
    public void toolCall(LlmToolCall call) {}
  };
}
