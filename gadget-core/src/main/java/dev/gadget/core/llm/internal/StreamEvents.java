package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmToolCall;

/** Where a stream assembler hands the pieces of a reply as they are recognised. */
public interface StreamEvents {
  /** Reasoning text. */
  void thinking(String text);

  /** Reply text. */
  void text(String text);

  /** A complete tool call. */
  void toolCall(LlmToolCall call);

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
