package dev.gadget.core.agent;

import dev.gadget.core.agent.internal.AgentTurn;
import dev.gadget.core.agent.internal.Approvals;
import dev.gadget.core.agent.internal.LoopSettings;
import dev.gadget.core.agent.internal.ToolSet;
import dev.gadget.core.agent.internal.WarnOnce;
import dev.gadget.core.agent.catalog.ToolCatalog;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.ToolDefinition;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agentic workflow loop of seed 002, as a library.
 *
 * <p>{@link #start} runs one turn: it sends the model a system prompt (project, workspace, mode,
 * tools), the session's earlier messages (system messages skipped; earlier tool calls with their
 * results paired by call id) and the user's prompt; streams the reply to the
 * {@link AgentListener}; runs the tool calls the model asks for, one after the other, and appends
 * the assistant's message (its text, thinking and calls) and each result; and goes again until the
 * model asks for no tool. Before each round trip the conversation is measured against the
 * model's context budget (its window, configured or discovered, less a reserve for the reply)
 * and goes through the {@link ContextPruner}, then, when that is not enough, the
 * {@link Compactor} (by default a {@link SummarizingCompactor}), which also gets one go when the
 * provider refuses a request as too long. {@link AgentLimits} bound the turn. A tool's failure goes back to the model
 * as its result; only a failed model call, a limit or {@link AgentRun#cancel()} end a turn early.
 *
 * <p>When the tools' definitions would take too much of the context budget
 * ({@link Builder#toolDeferral}), or the client takes fewer tools than there are
 * ({@link LlmClient#maxTools()}), the turn offers the always-loaded tools and
 * {@code search_tools}, which finds the others in the loop's {@link ToolCatalog} and loads them
 * for the rest of the turn, appended after the tools already offered.
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

  private final LoopSettings settings;
  private final AgentListener defaultListener;
  private final Executor executor;

  private AgentLoop(Builder b) {
    LlmClient llm = Objects.requireNonNull(b.llm, "llmClient");
    ToolSet tools = new ToolSet(b.tools);
    if (tools.get(ToolSearch.NAME) != null) {
      throw new IllegalArgumentException("a tool is named " + ToolSearch.NAME + ", the name of "
          + "the loop's own tool search; rename it");
    }
    if (tools.get(ToolSearch.CALL_TOOL) != null) {
      throw new IllegalArgumentException("a tool is named " + ToolSearch.CALL_TOOL + ", the name "
          + "through which the loop has the model call the tools a search loaded; rename it");
    }
    ContextPruner pruner =
        b.pruner != null ? b.pruner : new ContextPruner(b.limits.contextTokenBudget());
    this.settings = new LoopSettings(llm, tools, b.limits, pruner, b.compactor, b.clock,
        b.systemPrompt, new WarnOnce(log), new WarnOnce(log), b.sandbox,
        new Approvals(b.approvalPolicy, b.approver, b.approvalTimeout),
        ToolCatalog.of(tools.definitions(), b.embeddings, b.examples), b.deferral);
    this.defaultListener = b.listener;
    this.executor = b.executor != null ? b.executor : r -> {
      Thread t = new Thread(r, "gadget-agent-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      t.start();
    };
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Every tool the model may call, in order (deferred ones too). */
  public List<ToolDefinition> toolDefinitions() {
    return settings.tools().definitions();
  }

  /** Every tool, indexed for search. */
  public ToolCatalog toolCatalog() {
    return settings.catalog();
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
    AgentTurn run = new AgentTurn(settings, Objects.requireNonNull(request, "request"),
        Objects.requireNonNull(listener, "listener"));
    try {
      executor.execute(run::execute);
    } catch (RejectedExecutionException e) {
      run.finish(run.outcome(AgentOutcome.Status.ERROR,
          "The agent could not start: its executor refused the run.", e));
    }
    return run;
  }

  /** Builds an {@link AgentLoop}. */
  public static final class Builder {
    private LlmClient llm;
    private List<Tool> tools = CodingTools.all();
    private AgentLimits limits = AgentLimits.DEFAULTS;
    private ContextPruner pruner;
    private Compactor compactor = new SummarizingCompactor();
    private Clock clock = Clock.systemUTC();
    private AgentListener listener = new AgentListener() {};
    private Executor executor;
    private SystemPrompt systemPrompt = SystemPrompt.DEFAULT;
    private CommandSandbox sandbox = CommandSandbox.none();
    private ApprovalPolicy approvalPolicy = Approvals.NONE.policy();
    private ToolApprover approver = Approvals.NONE.approver();
    private Duration approvalTimeout = Approvals.NONE.timeout();
    private ToolDeferral deferral = ToolDeferral.DEFAULT;
    private dev.gadget.core.agent.catalog.SemanticToolIndex embeddings;
    private dev.gadget.core.agent.catalog.ToolExamples examples =
        dev.gadget.core.agent.catalog.ToolExamples.NONE;

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

    /**
     * What compacts the conversation when pruning cannot bring it under the context budget, and
     * once when the provider refuses a request as too long (default: a
     * {@link SummarizingCompactor}; {@link Compactor#NONE} never compacts).
     */
    public Builder compactor(Compactor compactor) {
      this.compactor = Objects.requireNonNull(compactor, "compactor");
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

    /**
     * Where {@code run_command} runs its commands (default {@link CommandSandbox#none()}: as this
     * process's user, with everything it may do).
     */
    public Builder sandbox(CommandSandbox sandbox) {
      this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
      return this;
    }

    /**
     * Holds back the calls {@code policy} names until {@code approver} decides (default
     * {@link ApprovalPolicy#NEVER}: every call runs at once). See {@link ToolApprover}.
     */
    public Builder approvals(ApprovalPolicy policy, ToolApprover approver) {
      this.approvalPolicy = Objects.requireNonNull(policy, "policy");
      this.approver = Objects.requireNonNull(approver, "approver");
      return this;
    }

    /**
     * How long a call waits for its approval before it is denied, {@code decidedBy}
     * {@code "timeout"} (default 1 hour).
     */
    public Builder approvalTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("the approval timeout must be positive");
      }
      this.approvalTimeout = timeout;
      return this;
    }

    /**
     * When tools are deferred (default {@link ToolDeferral#DEFAULT}: when their definitions would
     * take more than 10% of the turn's context budget): the model is then offered the
     * always-loaded tools (the coding tools) and {@code search_tools}, which finds and loads the
     * others for the rest of the turn.
     */
    public Builder toolDeferral(ToolDeferral deferral) {
      this.deferral = Objects.requireNonNull(deferral, "deferral");
      return this;
    }

    /**
     * Lets {@code search_tools} also rank by meaning, with the embeddings of {@code index}'s
     * model fused with its lexical ranking ({@link ToolCatalog#of(List,
     * dev.gadget.core.agent.catalog.SemanticToolIndex)}); {@code null} (the default): lexical
     * only. Give every loop of an application the same index, so that a definition is embedded
     * once.
     */
    public Builder toolEmbeddings(dev.gadget.core.agent.catalog.SemanticToolIndex index) {
      this.embeddings = index;
      return this;
    }

    /**
     * Indexes each tool with requests a user might make of it ({@link
     * dev.gadget.core.agent.catalog.ToolExamples}), so that {@code search_tools} finds tools by
     * the words people use; none by default.
     */
    public Builder toolExamples(dev.gadget.core.agent.catalog.ToolExamples examples) {
      this.examples = Objects.requireNonNull(examples, "examples");
      return this;
    }

    /** The loop. */
    public AgentLoop build() {
      return new AgentLoop(this);
    }
  }
}
