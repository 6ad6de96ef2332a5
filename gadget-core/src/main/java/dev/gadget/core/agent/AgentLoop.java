package dev.gadget.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.stream.StreamChunk;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agentic workflow loop of seed 002, as a library.
 *
 * <p>{@link #start} runs one turn: it sends the model a system prompt (project, workspace, mode,
 * tools), the session's earlier messages (system messages skipped, assistant thinking merged as
 * {@code <thinking>…</thinking>}) and the user's prompt; streams the reply to the
 * {@link AgentListener}; runs the tool calls the model asks for, one after the other, and appends
 * the assistant's message (its text, thinking and calls) and each result; and goes again until the
 * model asks for no tool. Before each round trip the conversation goes through the
 * {@link ContextPruner}. {@link AgentLimits} bound the turn. A tool's failure goes back to the model
 * as its result; only a failed model call, a limit or {@link AgentRun#cancel()} end a turn early.
 *
 * <pre>{@code
 * AgentLoop loop = AgentLoop.builder().llmClient(client).build();
 * AgentRun run = loop.start(AgentRequest.builder(dir, "qwen3", "Fix the bug").build(), listener);
 * AgentOutcome outcome = run.outcome().get();
 * }</pre>
 *
 * <p><b>Threading.</b> An {@code AgentLoop} is immutable and thread-safe; it may run any number of
 * turns at once, each on its own thread from the {@link Builder#executor executor} (by default a
 * new daemon thread per run). Every run owns its tools' state (what files it has read).
 */
public final class AgentLoop {
  private static final Logger log = LoggerFactory.getLogger(AgentLoop.class);
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final String HISTORY_TOOL_PREFIX = "[Tool result from an earlier turn]\n";

  private final LlmClient llm;
  private final Map<String, Tool> tools;
  private final List<ToolDefinition> definitions;
  private final AgentLimits limits;
  private final ContextPruner pruner;
  private final Clock clock;
  private final AgentListener defaultListener;
  private final Executor executor;
  private final SystemPrompt systemPrompt;
  private final AtomicBoolean listenerWarned = new AtomicBoolean();
  private final AtomicBoolean budgetWarned = new AtomicBoolean();

  private AgentLoop(Builder b) {
    this.llm = Objects.requireNonNull(b.llm, "llmClient");
    Map<String, Tool> byName = new LinkedHashMap<>();
    for (Tool tool : b.tools) {
      if (byName.put(tool.name(), tool) != null) {
        throw new IllegalArgumentException("two tools are named " + tool.name());
      }
    }
    this.tools = Collections.unmodifiableMap(byName);
    List<ToolDefinition> defs = new ArrayList<>();
    for (Tool tool : byName.values()) {
      defs.add(tool.definition());
    }
    this.definitions = List.copyOf(defs);
    this.limits = b.limits;
    this.pruner = b.pruner != null ? b.pruner : new ContextPruner(limits.contextTokenBudget());
    this.clock = b.clock;
    this.defaultListener = b.listener;
    this.executor = b.executor != null ? b.executor : r -> {
      Thread t = new Thread(r, "gadget-agent-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      t.start();
    };
    this.systemPrompt = b.systemPrompt;
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The tools offered to the model, in order. */
  public List<ToolDefinition> toolDefinitions() {
    return definitions;
  }

  /** Starts a turn whose events go to the builder's {@link Builder#listener listener}. */
  public AgentRun start(AgentRequest request) {
    return start(request, defaultListener);
  }

  /**
   * Starts a turn. Returns at once; the turn runs on the executor's thread.
   *
   * @param request the turn to run
   * @param listener receives its events and, last, exactly one {@link AgentListener#onComplete}
   * @return the handle to cancel it or wait for its outcome
   */
  public AgentRun start(AgentRequest request, AgentListener listener) {
    Run run = new Run(Objects.requireNonNull(request, "request"),
        Objects.requireNonNull(listener, "listener"));
    try {
      executor.execute(run::execute);
    } catch (RejectedExecutionException e) {
      run.finish(run.outcome(AgentOutcome.Status.ERROR,
          "The agent could not start: its executor refused the run.", e));
    }
    return run;
  }

  /** Converts a session's earlier messages into the model's, as seed 002 says. */
  static List<LlmMessage> sessionContext(List<ChatMessage> context) {
    List<LlmMessage> out = new ArrayList<>();
    for (ChatMessage m : context) {
      switch (m.role()) {
        case SYSTEM:
          break; // seed 002: earlier system prompts are not replayed
        case USER:
          out.add(LlmMessage.user(m.content()));
          break;
        case ASSISTANT:
          out.add(LlmMessage.assistant(m.content(), null, List.of()));
          break;
        case TOOL:
          // A stored tool result has no call id to pair it with, so it cannot be sent as a tool
          // message; it goes as a note the model can read.
          out.add(LlmMessage.user(HISTORY_TOOL_PREFIX + m.content()));
          break;
        default:
          throw new IllegalStateException("role " + m.role());
      }
    }
    return out;
  }

  private static String parametersText(JsonNode arguments) {
    return arguments.isTextual() ? arguments.asText() : arguments.toString();
  }

  /** Thrown inside a run once it is cancelled, to unwind to {@link Run#execute}. */
  private static final class Cancelled extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Cancelled() {
      super("cancelled", null, false, false);
    }
  }

  /** One turn. */
  private final class Run implements AgentRun {
    private final AgentRequest request;
    private final AgentListener listener;
    private final CompletableFuture<AgentOutcome> result = new CompletableFuture<>();
    private final Object lock = new Object();
    private final Object emitLock = new Object();
    private final List<ToolCall> toolCalls = new ArrayList<>();
    private final List<ChatMessage> chatMessages = new ArrayList<>();
    private final Instant startedAt;
    private RunToolContext context;
    // guarded by lock
    private boolean started;
    private boolean cancelled;
    private Thread runner;
    private LlmCall currentCall;
    // guarded by emitLock
    private boolean terminated;
    // loop thread only
    private long promptTokens;
    private long completionTokens;
    private long thinkingTokens;
    private int llmCalls;
    private String lastText = "";

    Run(AgentRequest request, AgentListener listener) {
      this.request = request;
      this.listener = listener;
      this.startedAt = clock.instant();
    }

    @Override
    public void cancel() {
      LlmCall call;
      Thread thread;
      boolean notStarted;
      RunToolContext ctx;
      synchronized (lock) {
        if (cancelled) {
          return;
        }
        cancelled = true;
        call = currentCall;
        thread = runner;
        notStarted = !started;
        ctx = context;
      }
      if (notStarted) {
        finish(outcome(AgentOutcome.Status.CANCELLED, "The turn was cancelled.", null));
        return;
      }
      if (ctx != null) {
        ctx.cancel();
      }
      if (call != null) {
        call.cancel();
      }
      if (thread != null) {
        thread.interrupt();
      }
    }

    @Override
    public CompletableFuture<AgentOutcome> outcome() {
      return result.copy();
    }

    void execute() {
      synchronized (lock) {
        if (cancelled) {
          return;
        }
        started = true;
        runner = Thread.currentThread();
      }
      AgentOutcome outcome;
      Error fatal = null;
      try {
        outcome = loop();
      } catch (Cancelled e) {
        outcome = outcome(AgentOutcome.Status.CANCELLED, "The turn was cancelled.", null);
      } catch (LlmException e) {
        outcome = outcome(AgentOutcome.Status.ERROR, "The model call failed: " + e.getMessage(), e);
      } catch (IOException e) {
        outcome = outcome(AgentOutcome.Status.ERROR,
            "The project directory cannot be used: " + e.getMessage(), e);
      } catch (RuntimeException | Error e) {
        log.error("the agent loop failed", e);
        outcome = outcome(AgentOutcome.Status.ERROR, "The agent failed: " + e, e);
        fatal = e instanceof Error ? (Error) e : null;
      } finally {
        synchronized (lock) {
          runner = null;
        }
        Thread.interrupted(); // a cancel's interrupt must not leak into the executor's thread
      }
      finish(outcome);
      if (fatal != null) {
        throw fatal;
      }
    }

    private AgentOutcome loop() throws IOException {
      RunToolContext ctx = new RunToolContext(new ProjectPaths(request.projectDir()));
      synchronized (lock) {
        context = ctx;
        if (cancelled) {
          throw new Cancelled();
        }
      }
      List<LlmMessage> messages = new ArrayList<>();
      messages.add(LlmMessage.system(systemPrompt.build(request, ctx.projectDir(), definitions)));
      messages.addAll(sessionContext(request.context()));
      messages.add(LlmMessage.user(request.prompt()));
      chatMessages.add(new ChatMessage(clock.instant(), Role.USER, request.prompt()));
      messages.addAll(request.resume());

      LlmToolCall previous = null;
      int repeats = 0;
      for (int iteration = 1; ; iteration++) {
        checkCancelled();
        int n = iteration;
        emit(l -> l.onIteration(n));
        List<LlmMessage> pruned = pruner.prune(messages);
        int estimate = ContextPruner.estimateTokens(pruned);
        if (estimate > pruner.tokenBudget()) {
          logOnce(budgetWarned, "the context is over its budget after pruning ({} > {} tokens)",
              estimate, pruner.tokenBudget());
        }
        LlmCompletion reply = callModel(pruned);
        lastText = reply.text();
        messages.add(LlmMessage.assistant(reply.text(),
            reply.thinking().isEmpty() ? null : reply.thinking(), reply.toolCalls()));
        if (!reply.text().isEmpty() || !reply.thinking().isEmpty()) {
          chatMessages.add(ChatMessage.assistant(clock.instant(), reply.thinking(), reply.text()));
        }
        if (reply.toolCalls().isEmpty()) {
          return outcome(AgentOutcome.Status.FINISHED, null, null);
        }
        for (LlmToolCall call : reply.toolCalls()) {
          checkCancelled();
          if (previous != null && previous.name().equals(call.name())
              && previous.arguments().equals(call.arguments())) {
            repeats++;
          } else {
            repeats = 1;
          }
          previous = call;
          if (repeats >= limits.repeatedToolCallLimit()) {
            return outcome(AgentOutcome.Status.LIMIT_HIT, "Stopped: the model called "
                + call.name() + " with the same arguments " + repeats + " times in a row, which "
                + "looks like a loop (limit: " + limits.repeatedToolCallLimit() + "). The work "
                + "so far is kept; send another prompt to go on.", null);
          }
          ToolResult result = runTool(ctx, call);
          messages.add(LlmMessage.tool(call, result.forModel()));
        }
        if (iteration >= limits.maxRoundTrips()) {
          return outcome(AgentOutcome.Status.LIMIT_HIT, "Stopped: the model made "
              + iteration + " round trips in this turn, the limit. The work so far is kept; "
              + "send another prompt to go on.", null);
        }
      }
    }

    private LlmCompletion callModel(List<LlmMessage> messages) {
      LlmRequest req = new LlmRequest(request.model(), messages, definitions, request.params(),
          request.think());
      CompletableFuture<LlmCompletion> done = new CompletableFuture<>();
      LlmCompletion[] partial = new LlmCompletion[1];
      LlmCall call = llm.stream(req, new LlmListener() {
        @Override
        public void onThinking(String text) {
          if (!text.isEmpty()) {
            emitChunk(new StreamChunk.Thinking(text));
          }
        }

        @Override
        public void onText(String text) {
          if (!text.isEmpty()) {
            emitChunk(new StreamChunk.Response(text));
          }
        }

        @Override
        public void onComplete(LlmCompletion completion) {
          done.complete(completion);
        }

        @Override
        public void onError(LlmException error, LlmCompletion partialCompletion) {
          partial[0] = partialCompletion;
          done.completeExceptionally(error);
        }
      });
      boolean cancelNow;
      synchronized (lock) {
        currentCall = call;
        cancelNow = cancelled;
      }
      if (cancelNow) {
        call.cancel();
      }
      llmCalls++;
      try {
        LlmCompletion completion = done.get();
        count(completion.usage());
        return completion;
      } catch (InterruptedException e) {
        call.cancel();
        throw new Cancelled();
      } catch (ExecutionException e) {
        if (partial[0] != null) {
          count(partial[0].usage());
        }
        if (isCancelled()) {
          throw new Cancelled();
        }
        if (e.getCause() instanceof LlmException) {
          throw (LlmException) e.getCause();
        }
        throw new LlmException(LlmException.Kind.PROTOCOL, String.valueOf(e.getCause()));
      } finally {
        synchronized (lock) {
          currentCall = null;
        }
      }
    }

    private ToolResult runTool(RunToolContext ctx, LlmToolCall call) {
      ToolCall started = new ToolCall(call.id(), call.name(), parametersText(call.arguments()),
          null);
      emit(l -> l.onToolStart(started));
      Instant t0 = clock.instant();
      Tool tool = tools.get(call.name());
      ToolResult result;
      JsonNode args = call.arguments().isNull() || call.arguments().isMissingNode()
          ? GadgetJson.mapper().createObjectNode() : call.arguments();
      try {
        if (tool == null) {
          result = ToolResult.error("there is no tool named \"" + call.name() + "\"; the tools "
              + "are: " + String.join(", ", tools.keySet()));
        } else if (!args.isObject()) {
          result = ToolResult.error("the arguments of " + call.name() + " must be a JSON object; "
              + "got: " + parametersText(args));
        } else {
          result = tool.execute(args, ctx);
          if (result == null) {
            result = ToolResult.error(call.name() + " returned no result");
          }
        }
      } catch (ToolException e) {
        result = ToolResult.error(e.getMessage());
      } catch (InterruptedException e) {
        result = ToolResult.error("interrupted: the turn was cancelled while " + call.name()
            + " ran");
      } catch (Exception e) {
        log.debug("tool {} threw", call.name(), e);
        result = ToolResult.error(call.name() + " failed: " + e);
      }
      boolean wasCancelled = isCancelled();
      if (wasCancelled && !result.error()) {
        result = ToolResult.error(result.output() + "\n(the turn was cancelled while "
            + call.name() + " ran)");
      }
      Duration duration = Duration.between(t0, clock.instant());
      ToolCall finished = started.withResponse(result.forModel());
      toolCalls.add(finished);
      chatMessages.add(new ChatMessage(clock.instant(), Role.TOOL,
          call.name() + " " + started.parameters() + "\n" + finished.response()));
      boolean success = !result.error();
      emit(l -> l.onToolEnd(finished, success, duration));
      emit(l -> l.onChunk(new StreamChunk.ToolCallChunk(finished)));
      if (wasCancelled) {
        throw new Cancelled();
      }
      return result;
    }

    private void count(LlmUsage usage) {
      promptTokens += usage.promptTokens();
      completionTokens += usage.completionTokens();
      thinkingTokens += usage.reasoningTokens();
    }

    private boolean isCancelled() {
      synchronized (lock) {
        return cancelled;
      }
    }

    private void checkCancelled() {
      if (isCancelled()) {
        throw new Cancelled();
      }
    }

    AgentOutcome outcome(AgentOutcome.Status status, String message, Throwable error) {
      long ms = Math.max(0, Duration.between(startedAt, clock.instant()).toMillis());
      TurnStats stats = new TurnStats(promptTokens, completionTokens, thinkingTokens,
          toolCalls.size(), llmCalls, ms);
      return new AgentOutcome(status, lastText, message, stats, toolCalls, chatMessages, error);
    }

    private void emitChunk(StreamChunk chunk) {
      if (!isCancelled()) {
        emit(l -> l.onChunk(chunk));
      }
    }

    private void emit(Consumer<AgentListener> event) {
      synchronized (emitLock) {
        if (terminated) {
          return;
        }
        try {
          event.accept(listener);
        } catch (RuntimeException e) {
          listenerThrew(e);
        }
      }
    }

    void finish(AgentOutcome outcome) {
      synchronized (emitLock) {
        if (terminated) {
          return;
        }
        terminated = true;
        try {
          listener.onComplete(outcome);
        } catch (RuntimeException e) {
          listenerThrew(e);
        }
      }
      result.complete(outcome);
    }

    private void listenerThrew(RuntimeException e) {
      if (listenerWarned.compareAndSet(false, true)) {
        log.warn("an AgentListener threw; the run goes on (further ones are logged at DEBUG)", e);
      } else {
        log.debug("an AgentListener threw; the run goes on", e);
      }
    }
  }

  private static void logOnce(AtomicBoolean flag, String format, Object... args) {
    if (flag.compareAndSet(false, true)) {
      log.warn(format, args);
    } else {
      log.debug(format, args);
    }
  }

  /** Builds an {@link AgentLoop}. */
  public static final class Builder {
    private LlmClient llm;
    private List<Tool> tools = CodingTools.all();
    private AgentLimits limits = AgentLimits.DEFAULTS;
    private ContextPruner pruner;
    private Clock clock = Clock.systemUTC();
    private AgentListener listener = new AgentListener() {};
    private Executor executor;
    private SystemPrompt systemPrompt = SystemPrompt.DEFAULT;

    private Builder() {}

    /** The model to call. Required. */
    public Builder llmClient(LlmClient llm) {
      this.llm = Objects.requireNonNull(llm, "llm");
      return this;
    }

    /** The tools offered to the model (default: {@link CodingTools#all()}). Names must differ. */
    public Builder tools(List<? extends Tool> tools) {
      this.tools = List.copyOf(tools);
      return this;
    }

    /** The limits of a turn (default {@link AgentLimits#DEFAULTS}). */
    public Builder limits(AgentLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * The pruner (default: a {@link ContextPruner} with the limits'
     * {@link AgentLimits#contextTokenBudget()}).
     */
    public Builder pruner(ContextPruner pruner) {
      this.pruner = Objects.requireNonNull(pruner, "pruner");
      return this;
    }

    /** The clock for timestamps and durations (default UTC system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The listener of {@link AgentLoop#start(AgentRequest)} (default: none). */
    public Builder listener(AgentListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Runs each turn (default: a new daemon thread per turn). A run blocks its thread until it
     * ends, so a pool needs a thread per concurrent turn.
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** Writes the system prompt (default {@link SystemPrompt#DEFAULT}). */
    public Builder systemPrompt(SystemPrompt systemPrompt) {
      this.systemPrompt = Objects.requireNonNull(systemPrompt, "systemPrompt");
      return this;
    }

    /** The loop. */
    public AgentLoop build() {
      return new AgentLoop(this);
    }
  }
}
