package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link LlmClient} that plays back scripted replies instead of calling a model: for tests
 * and for the demo when no model is configured. Its replies are canned, not generated, and it
 * says so in its name.
 *
 * <p>Each {@link #stream} call takes the next {@link Reply} queued with {@link Builder#reply},
 * or, once the queue is empty, asks the {@link Builder#script script} function; with neither it
 * fails with {@link LlmException.Kind#CLIENT}. A reply's text is streamed word by word, with
 * {@link Builder#tokenDelay} between tokens, on one shared scheduler thread (no thread per
 * call). Every request is recorded for assertions ({@link #requests()}).
 */
public final class ScriptedLlmClient implements LlmClient {
  private static final Logger log = LoggerFactory.getLogger(ScriptedLlmClient.class);
  private static final Pattern TOKEN = Pattern.compile("\\s*\\S+|\\s+");
  private static final ScheduledExecutorService SCHEDULER =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gadget-scripted-llm");
        t.setDaemon(true);
        return t;
      });

  private final Deque<Reply> queued;
  private final Function<LlmRequest, Reply> script;
  private final Duration tokenDelay;
  private final ToolLoading toolLoading;
  private final List<LlmRequest> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger callIds = new AtomicInteger();

  private ScriptedLlmClient(Builder b) {
    this.queued = new ArrayDeque<>(b.replies);
    this.script = b.script;
    this.tokenDelay = b.tokenDelay;
    this.toolLoading = b.toolLoading;
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** A client that plays {@code replies} in order. */
  public static ScriptedLlmClient of(Reply... replies) {
    Builder b = builder();
    for (Reply r : replies) {
      b.reply(r);
    }
    return b.build();
  }

  /** Starts building a reply. */
  public static Reply.Builder reply() {
    return new Reply.Builder();
  }

  /** Every request received so far, in order. */
  public List<LlmRequest> requests() {
    return List.copyOf(requests);
  }

  /** What the builder said ({@link ToolLoading#APPEND} by default). */
  @Override
  public ToolLoading toolLoading() {
    return toolLoading;
  }

  /** Replies still queued. */
  public synchronized int remaining() {
    return queued.size();
  }

  @Override
  public LlmCall stream(LlmRequest request, LlmListener listener) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(listener, "listener");
    requests.add(request);
    Reply reply;
    synchronized (this) {
      reply = queued.poll();
    }
    if (reply == null && script != null) {
      reply = script.apply(request);
    }
    Playback playback = new Playback(reply, listener);
    playback.schedule(Duration.ZERO);
    return playback;
  }

  /** One scripted reply: thinking, text and tool calls, played in the order added. */
  public static final class Reply {
    private final List<Object> steps;
    private final LlmUsage usage;
    private final FinishReason finishReason;

    private Reply(List<Object> steps, LlmUsage usage, FinishReason finishReason) {
      this.steps = List.copyOf(steps);
      this.usage = usage;
      this.finishReason = finishReason;
    }

    /** Builds a {@link Reply}. */
    public static final class Builder {
      private final List<Object> steps = new ArrayList<>();
      private LlmUsage usage;
      private FinishReason finishReason;

      /** Streams reasoning. */
      public Builder thinking(String text) {
        steps.add(new Thinking(Objects.requireNonNull(text, "text")));
        return this;
      }

      /** Streams reply text. */
      public Builder text(String text) {
        steps.add(Objects.requireNonNull(text, "text"));
        return this;
      }

      /** Calls a tool with arguments given as JSON text (invalid JSON is passed on as text). */
      public Builder toolCall(String name, String argumentsJson) {
        steps.add(new Call(Objects.requireNonNull(name, "name"),
            Objects.requireNonNull(argumentsJson, "argumentsJson")));
        return this;
      }

      /** Ends the reply with an error after the steps so far. */
      public Builder fail(String message) {
        steps.add(new LlmException(LlmException.Kind.STREAM, message));
        return this;
      }

      /**
       * The usage the reply reports (default: no input, one output token per streamed word),
       * such as prompt-cache reads and writes.
       */
      public Builder usage(LlmUsage usage) {
        this.usage = Objects.requireNonNull(usage, "usage");
        return this;
      }

      /**
       * Why the model says it stopped (default: {@link FinishReason#TOOL_CALLS} when the reply
       * calls tools, else {@link FinishReason#STOP}), such as {@link FinishReason#LENGTH} for a
       * reply cut at the model's output limit.
       */
      public Builder finishReason(FinishReason reason) {
        this.finishReason = Objects.requireNonNull(reason, "reason");
        return this;
      }

      /** The reply. */
      public Reply build() {
        return new Reply(steps, usage, finishReason);
      }
    }

    private record Thinking(String text) {}

    private record Call(String name, String arguments) {}
  }

  /** Builds a {@link ScriptedLlmClient}. */
  public static final class Builder {
    private final List<Reply> replies = new ArrayList<>();
    private Function<LlmRequest, Reply> script;
    private Duration tokenDelay = Duration.ZERO;
    private ToolLoading toolLoading = ToolLoading.APPEND;

    /** Queues a reply. */
    public Builder reply(Reply reply) {
      replies.add(Objects.requireNonNull(reply, "reply"));
      return this;
    }

    /** Answers requests once the queue is empty. */
    public Builder script(Function<LlmRequest, Reply> script) {
      this.script = Objects.requireNonNull(script, "script");
      return this;
    }

    /** The pause between streamed tokens (default none). */
    public Builder tokenDelay(Duration delay) {
      if (delay.isNegative()) {
        throw new IllegalArgumentException("negative delay");
      }
      this.tokenDelay = delay;
      return this;
    }

    /** How the client says deferred tools are loaded (default {@link ToolLoading#APPEND}). */
    public Builder toolLoading(ToolLoading loading) {
      this.toolLoading = Objects.requireNonNull(loading, "loading");
      return this;
    }

    /** The client. */
    public ScriptedLlmClient build() {
      return new ScriptedLlmClient(this);
    }
  }

  /** Plays one reply, one event per scheduler tick. */
  private final class Playback implements LlmCall {
    private final Deque<Object> events = new ArrayDeque<>();
    private final LlmListener listener;
    private final CompletableFuture<LlmCompletion> result = new CompletableFuture<>();
    private final StringBuilder text = new StringBuilder();
    private final StringBuilder thinking = new StringBuilder();
    private final List<LlmToolCall> calls = new ArrayList<>();
    private long tokens;
    private LlmUsage usage;
    private FinishReason finishReason;
    private ScheduledFuture<?> next;
    private boolean done;

    Playback(Reply reply, LlmListener listener) {
      this.listener = listener;
      if (reply == null) {
        events.add(new LlmException(LlmException.Kind.CLIENT,
            "ScriptedLlmClient has no reply left for this request"));
        return;
      }
      usage = reply.usage;
      finishReason = reply.finishReason;
      for (Object step : reply.steps) {
        if (step instanceof String s) {
          split(s, false);
        } else if (step instanceof Reply.Thinking t) {
          split(t.text(), true);
        } else {
          events.add(step);
        }
      }
    }

    private void split(String s, boolean isThinking) {
      Matcher m = TOKEN.matcher(s);
      while (m.find()) {
        events.add(isThinking ? new Reply.Thinking(m.group()) : m.group());
      }
    }

    synchronized void schedule(Duration delay) {
      if (!done) {
        next = SCHEDULER.schedule(this::step, delay.toNanos(), TimeUnit.NANOSECONDS);
      }
    }

    private void step() {
      Object event;
      synchronized (this) {
        if (done) {
          return;
        }
        event = events.poll();
      }
      try {
        if (event == null) {
          finish(null);
          return;
        }
        if (event instanceof String s) {
          text.append(s);
          tokens++;
          listener.onText(s);
        } else if (event instanceof Reply.Thinking t) {
          thinking.append(t.text());
          tokens++;
          listener.onThinking(t.text());
        } else if (event instanceof Reply.Call c) {
          LlmToolCall call = new LlmToolCall(
              "call_" + callIds.incrementAndGet(), c.name(), parse(c.arguments()));
          calls.add(call);
          listener.onToolCall(call);
        } else if (event instanceof LlmException e) {
          finish(e);
          return;
        }
      } catch (RuntimeException e) {
        log.warn("LlmListener threw; the call goes on", e);
      }
      schedule(events.isEmpty() ? Duration.ZERO : tokenDelay);
    }

    private JsonNode parse(String json) {
      try {
        return GadgetJson.mapper().readTree(json);
      } catch (Exception e) {
        return GadgetJson.mapper().getNodeFactory().textNode(json);
      }
    }

    private void finish(LlmException error) {
      synchronized (this) {
        if (done) {
          return;
        }
        done = true;
      }
      LlmUsage usage = this.usage != null ? this.usage
          : new LlmUsage(0, tokens, 0, null, null, null, null);
      LlmCompletion completion = new LlmCompletion(text.toString(), thinking.toString(), calls,
          usage, finishReason != null ? finishReason
              : calls.isEmpty() ? FinishReason.STOP : FinishReason.TOOL_CALLS);
      try {
        if (error == null) {
          listener.onComplete(completion);
        } else {
          listener.onError(error, completion);
        }
      } catch (RuntimeException e) {
        log.warn("LlmListener threw in its terminal callback", e);
      }
      if (error == null) {
        result.complete(completion);
      } else {
        result.completeExceptionally(error);
      }
    }

    @Override
    public void cancel() {
      ScheduledFuture<?> pending;
      synchronized (this) {
        pending = next;
      }
      if (pending != null) {
        pending.cancel(false);
      }
      SCHEDULER.execute(() -> finish(new LlmException(LlmException.Kind.CANCELLED, "cancelled")));
    }

    @Override
    public CompletableFuture<LlmCompletion> result() {
      return result;
    }
  }
}
