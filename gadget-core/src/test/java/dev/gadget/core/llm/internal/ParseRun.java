package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmToolCall;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/** Runs a {@link StreamParser} over pieces of input and records what came out. */
final class ParseRun implements StreamEvents {
  final List<String> events = new ArrayList<>();
  final StringBuilder thinking = new StringBuilder();
  final StringBuilder text = new StringBuilder();
  final List<LlmToolCall> calls = new ArrayList<>();
  LlmCompletion completion;
  LlmException error;
  LlmCompletion partial;

  @Override
  public void thinking(String t) {
    events.add("thinking");
    thinking.append(t);
  }

  @Override
  public void text(String t) {
    events.add("text");
    text.append(t);
  }

  @Override
  public void toolCall(LlmToolCall call) {
    events.add("tool:" + call.name());
    calls.add(call);
  }

  /** Counting ids: call_1, call_2, ... */
  static Supplier<String> ids() {
    AtomicInteger n = new AtomicInteger();
    return () -> "gen_" + n.incrementAndGet();
  }

  static ParseRun run(BiFunction<StreamEvents, Supplier<String>, StreamParser> make,
      List<byte[]> pieces) {
    ParseRun run = new ParseRun();
    StreamParser p = make.apply(run, ids());
    try {
      for (byte[] piece : pieces) {
        p.feed(ByteBuffer.wrap(piece));
      }
      run.completion = p.finish();
    } catch (LlmException e) {
      run.error = e;
      run.partial = p.partial();
    }
    return run;
  }

  static ParseRun ollama(List<byte[]> pieces) {
    return run((ev, ids) -> StreamParser.ollama(ev, ids, 1 << 20), pieces);
  }

  static ParseRun openAi(List<byte[]> pieces) {
    return run((ev, ids) -> StreamParser.openAi(ev, ids, 1 << 20), pieces);
  }

  static ParseRun anthropic(List<byte[]> pieces) {
    return run((ev, ids) -> StreamParser.anthropic(ev, 1 << 20), pieces);
  }

  /** Collapses runs of the same event ("thinking","thinking","text" to "thinking","text"). */
  List<String> shape() {
    List<String> out = new ArrayList<>();
    for (String e : events) {
      if (out.isEmpty() || !out.get(out.size() - 1).equals(e) || e.startsWith("tool:")) {
        out.add(e);
      }
    }
    return out;
  }
}
