package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * An {@link LlmListener} that records every callback, checks that callbacks never overlap and
 * that nothing follows the terminal one, and lets a test wait for the end.
 */
public final class RecordingListener implements LlmListener {
  /** How a call ended. */
  public record Outcome(LlmCompletion completion, LlmException error, LlmCompletion partial) {
    /** The completion, failing if the call failed. */
    public LlmCompletion completed() {
      if (error != null) {
        throw new AssertionError("expected success but the call failed: " + error, error);
      }
      return completion;
    }

    /** The error, failing if the call succeeded. */
    public LlmException failed() {
      if (error == null) {
        throw new AssertionError("expected a failure but the call completed: " + completion);
      }
      return error;
    }
  }

  /** Every callback in order: {@code thinking:..}, {@code text:..}, {@code tool:name}, ... */
  public final List<String> events = Collections.synchronizedList(new ArrayList<>());
  public final List<String> thinkingDeltas = Collections.synchronizedList(new ArrayList<>());
  public final List<String> textDeltas = Collections.synchronizedList(new ArrayList<>());
  public final List<LlmToolCall> toolCalls = Collections.synchronizedList(new ArrayList<>());
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger inside = new AtomicInteger();
  private final AtomicInteger terminals = new AtomicInteger();
  private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
  private final CompletableFuture<Void> firstEvent = new CompletableFuture<>();
  private volatile Consumer<String> onEachEvent = e -> { };

  /** Runs {@code hook} inside every non-terminal callback (for example to cancel). */
  public RecordingListener onEachEvent(Consumer<String> hook) {
    this.onEachEvent = hook;
    return this;
  }

  private void enter(String event) {
    if (inside.incrementAndGet() != 1) {
      violations.add("overlapping callback: " + event);
    }
    if (terminals.get() > 0) {
      violations.add("callback after the terminal one: " + event);
    }
    events.add(event);
  }

  private void exit() {
    inside.decrementAndGet();
  }

  @Override
  public void onThinking(String text) {
    enter("thinking:" + text);
    thinkingDeltas.add(text);
    firstEvent.complete(null);
    try {
      onEachEvent.accept("thinking");
    } finally {
      exit();
    }
  }

  @Override
  public void onText(String text) {
    enter("text:" + text);
    textDeltas.add(text);
    firstEvent.complete(null);
    try {
      onEachEvent.accept("text");
    } finally {
      exit();
    }
  }

  @Override
  public void onToolCall(LlmToolCall call) {
    enter("tool:" + call.name());
    toolCalls.add(call);
    firstEvent.complete(null);
    try {
      onEachEvent.accept("tool");
    } finally {
      exit();
    }
  }

  @Override
  public void onComplete(LlmCompletion completion) {
    enter("complete");
    terminals.incrementAndGet();
    outcome.complete(new Outcome(completion, null, null));
    exit();
  }

  @Override
  public void onError(LlmException error, LlmCompletion partial) {
    enter("error:" + error.kind());
    terminals.incrementAndGet();
    outcome.complete(new Outcome(null, error, partial));
    exit();
  }

  /** Waits up to 10 s for the terminal callback. */
  public Outcome await() {
    return await(10);
  }

  /** Waits up to {@code seconds} for the terminal callback. */
  public Outcome await(int seconds) {
    try {
      return outcome.get(seconds, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no terminal callback within " + seconds + " s; events: "
          + events, e);
    }
  }

  /** Waits up to 10 s for the first non-terminal callback. */
  public void awaitFirstEvent() {
    try {
      firstEvent.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no event within 10 s", e);
    }
  }

  /** Whether a terminal callback arrived. */
  public boolean ended() {
    return outcome.isDone();
  }

  /**
   * Asserts the contract: exactly one terminal callback, last, no overlaps, and the streamed
   * deltas add up to what the terminal callback reports.
   */
  public Outcome assertContract() {
    Outcome o = await();
    assertThat(violations).as("listener contract violations").isEmpty();
    assertThat(terminals.get()).as("terminal callbacks").isEqualTo(1);
    String last = events.get(events.size() - 1);
    assertThat(last).as("last event").matches("complete|error:.*");
    LlmCompletion c = o.error() == null ? o.completion() : o.partial();
    assertThat(c).as("completion or partial").isNotNull();
    if (o.error() != null && o.error().kind() == LlmException.Kind.CANCELLED) {
      // events stop at cancel(); the partial may hold what was parsed after it
      assertThat(c.thinking()).as("partial thinking").startsWith(String.join("", thinkingDeltas));
      assertThat(c.text()).as("partial text").startsWith(String.join("", textDeltas));
    } else {
      assertThat(String.join("", thinkingDeltas)).as("streamed thinking").isEqualTo(c.thinking());
      assertThat(String.join("", textDeltas)).as("streamed text").isEqualTo(c.text());
      assertThat(toolCalls).as("streamed tool calls").containsExactlyElementsOf(c.toolCalls());
    }
    return o;
  }
}
