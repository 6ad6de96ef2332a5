package dev.gadget.transport.ws;

import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ScriptedLlmClient;
import java.util.concurrent.atomic.AtomicInteger;

/** A scripted model whose text stream waits at {@link ModelGate}s before chosen tokens. */
final class GatedLlm implements LlmClient {
  /** The gate before text token {@code token} of model call {@code call}, or null. */
  @FunctionalInterface
  interface GateAt {
    ModelGate at(int call, int token);
  }

  private final ScriptedLlmClient scripted;
  private final GateAt gates;
  private final AtomicInteger calls = new AtomicInteger();

  GatedLlm(ScriptedLlmClient scripted, GateAt gates) {
    this.scripted = scripted;
    this.gates = gates;
  }

  @Override
  public LlmCall stream(LlmRequest request, LlmListener listener) {
    int call = calls.getAndIncrement();
    AtomicInteger textTokens = new AtomicInteger();
    return scripted.stream(request, new LlmListener() {
      @Override
      public void onThinking(String text) {
        listener.onThinking(text);
      }

      @Override
      public void onText(String text) {
        ModelGate gate = gates.at(call, textTokens.getAndIncrement());
        if (gate != null) {
          gate.pass();
        }
        listener.onText(text);
      }

      @Override
      public void onToolCall(LlmToolCall call) {
        listener.onToolCall(call);
      }

      @Override
      public void onComplete(LlmCompletion completion) {
        listener.onComplete(completion);
      }

      @Override
      public void onError(LlmException error, LlmCompletion partial) {
        listener.onError(error, partial);
      }
    });
  }
}
