package dev.gadget.core.drone;

import dev.gadget.core.agent.AgentLimits;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.drone.internal.CrashRecovery;
import dev.gadget.core.drone.internal.ServerLink;
import dev.gadget.core.drone.internal.DroneLog;
import dev.gadget.core.drone.internal.DroneSkills;
import dev.gadget.core.drone.internal.DroneToolExamples;
import dev.gadget.core.drone.internal.DroneToolSynthesis;
import dev.gadget.core.drone.internal.DroneState;
import dev.gadget.core.drone.internal.DroneThreads;
import dev.gadget.core.drone.internal.DroneWorkspace;
import dev.gadget.core.drone.internal.JobRunner;
import dev.gadget.core.drone.internal.SafeDroneListener;
import dev.gadget.core.drone.internal.ServerEvents;
import dev.gadget.core.drone.internal.TurnCompletion;
import dev.gadget.core.drone.internal.TurnLoops;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.transport.TransportClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Gadget drone: owns one workspace directory, connects to a server with a drone token, and runs
 * the work orders the server sends through the {@link AgentLoop}, streaming every chunk back.
 *
 * <p>At start it creates or validates {@code .gadget/workspace.json}. For each work order it
 * writes {@code .gadget/work-order.json} (never the API key) before accepting, clones the project
 * into the workspace when missing or fetches it otherwise, runs the loop, journals each completed
 * tool round into the cache, and removes the cache once the server has acknowledged the turn's
 * end. It runs one turn at a time and refuses work while busy or while the workspace is in user
 * mode. If it finds a cached work order at start (it crashed), it asks the server whether to
 * discard it or retry it, resuming after the journaled rounds when it may.
 *
 * <p>One drone per workspace: {@link #start()} takes a {@link WorkspaceLock} on the directory and
 * refuses to start when another drone holds it. {@link #close()} stops cleanly: a running turn
 * is cancelled and reported to the server, which ends it at once as cancelled, and the next
 * start has nothing to recover.
 *
 * <p>Wire it with {@link #builder()}, {@link #start()} it, {@link #close()} it. Thread-safe.
 */
public final class GadgetDrone implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GadgetDrone.class);

  private final TransportClient transport;
  private final String token;
  private final Path workspaceDir;
  private final String hostname;
  private final List<Tool> tools;
  private final Function<Path, TurnTools> turnTools;
  private final CommandSandbox sandbox;
  private final int keptCheckpoints;
  private final TurnLoops.Settings loopSettings;
  private final Duration heartbeatInterval;
  private final Duration ackTimeout;
  private final Duration stopTimeout;
  private final Git git;
  private final Clock clock;
  private final DroneListener listener;
  private final DroneLog droneLog;
  private final DroneSkills skills;
  private final ScheduledExecutorService timer;
  private final ExecutorService worker;
  private final DroneState state = new DroneState();

  private Workspace workspace;
  private WorkspaceLock lock;
  private JobRunner jobs;
  private DroneToolSynthesis synthesis;

  private GadgetDrone(Builder b) {
    this.transport = Objects.requireNonNull(b.transport, "transport");
    this.token = Objects.requireNonNull(b.token, "token");
    this.workspaceDir = Objects.requireNonNull(b.workspaceDir, "workspaceDir");
    this.hostname = b.hostname;
    this.loopSettings = new TurnLoops.Settings(Objects.requireNonNull(b.llmClients,
        "llmClients"), b.limits, b.deferral, b.embeddings,
        new DroneToolExamples(b.toolExamples, b.llmClients), b.clock);
    this.tools = b.tools;
    this.turnTools = b.turnTools;
    this.sandbox = b.sandbox;
    this.keptCheckpoints = b.keptCheckpoints;
    this.heartbeatInterval = b.heartbeatInterval;
    this.ackTimeout = b.ackTimeout;
    this.stopTimeout = b.stopTimeout;
    this.git = new Git(b.gitTimeout);
    this.clock = b.clock;
    this.droneLog = new DroneLog(workspaceDir, b.clock, b.logLimit, token,
        new SafeDroneListener(b.listener));
    this.listener = droneLog;
    this.skills = new DroneSkills(b.userSkills, b.createTools, b.userTools,
        this::reportProblem);
    this.timer = Executors.newSingleThreadScheduledExecutor(
        DroneThreads.daemon("gadget-drone-timer"));
    this.worker = Executors.newSingleThreadExecutor(DroneThreads.daemon("gadget-drone-worker"));
  }

  private void reportProblem(String problem) { // a skill's or a synthesized tool's
    log.warn("{}", problem);
    droneLog.line("WARN", problem);
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Locks and opens the workspace and connects. Returns once connecting has begun; the
   * {@link DroneListener} hears when the server accepts or refuses.
   *
   * @throws WorkspaceException if another drone holds the workspace (the message names its
   *     process), or {@code .gadget/workspace.json} is corrupt
   */
  public synchronized void start() {
    if (lock != null) {
      throw new IllegalStateException("the drone is already started");
    }
    WorkspaceLock held = WorkspaceLock.acquire(workspaceDir, hostname, clock);
    workspace = Workspace.openOrRelease(workspaceDir, hostname, clock, held);
    lock = held;
    log.info("workspace {} in {}", workspace.id(), workspace.dir());
    droneLog.line("INFO", "drone started on " + hostname + ": workspace " + workspace.id()
        + " in " + workspace.dir());
    sandbox.problem().ifPresentOrElse(
        problem -> log.error("run_command will refuse every command: {}", problem),
        () -> log.info("commands run {}", sandbox.where()));
    synthesis = skills.synthesis(workspace.dir());
    DroneWorkspace files = new DroneWorkspace(workspace, git, clock);
    files.starting();
    ServerLink link = new ServerLink(transport, token, hostname, files, state, listener, timer,
        heartbeatInterval, ackTimeout);
    TurnCompletion completion = new TurnCompletion(state, files, link, listener, timer,
        droneLog::redact);
    TurnLoops loops = new TurnLoops(loopSettings, tools, sandbox.newBuilder()
        .hide(workspace.dir()).readable(skills.userFolders()), token, skills, synthesis,
        droneLog::secret);
    jobs = new JobRunner(state, files, link, completion, loops, turnTools, clock,
        worker, keptCheckpoints);
    jobs.restoreMode();
    CrashRecovery recovery = new CrashRecovery(state, files, link, jobs, completion, timer,
        clock);
    recovery.load();
    link.tools(tools, synthesis.orphansCleaned());
    link.connect(new ServerEvents(jobs, recovery, files, state, link, skills,
        synthesis), recovery::ask);
  }

  /** The workspace's id (after {@link #start()}). */
  public String workspaceId() {
    return workspace.id();
  }

  /** The workspace (after {@link #start()}). */
  public Workspace workspace() {
    return workspace;
  }

  /** The turn being run, if any. */
  public Optional<String> activeTurnId() {
    return state.activeTurnId();
  }

  /**
   * Stops cleanly, then disconnects and releases the workspace. A running turn is cancelled and
   * its end reported to the server as {@code cancelled}, with a message saying that this drone
   * was stopped; the drone waits up to {@link Builder#stopTimeout(Duration)} for the server's
   * acknowledgement, after which {@code .gadget/work-order.json} is gone. If the server does not
   * answer in time (it is unreachable), the cache stays, marked {@link WorkOrderCache#STOPPED},
   * and the next start reports the turn's end again (no crash recovery). Blocks for at most that
   * long; idempotent.
   */
  @Override
  public void close() {
    JobRunner running;
    synchronized (this) {
      running = jobs;
      jobs = null;
    }
    if (running != null) {
      running.stop("the drone on " + hostname + " was stopped while it ran this turn",
          stopTimeout);
    }
    AgentRun run = state.close(false);
    if (run != null) {
      run.cancel();
    }
    transport.close();
    timer.shutdownNow();
    worker.shutdownNow();
    loopSettings.examples().close();
    synchronized (this) {
      if (lock != null) {
        droneLog.line("INFO", "drone stopped");
      }
    }
    releaseLock();
  }

  private synchronized void releaseLock() {
    droneLog.close();
    if (workspace != null) {
      workspace.close();
    }
    if (lock != null) {
      lock.close();
    }
  }

  /**
   * Stops the drone the way a crash would: the connection drops without a goodbye, the running
   * turn is abandoned (its commands killed) and {@code .gadget/work-order.json} stays where it
   * is. For fault-injection tests and for the demo's crash button; a real crash needs no call.
   */
  public void abandon() {
    AgentRun run = state.close(true);
    transport.close();
    if (run != null) {
      run.cancel();
    }
    timer.shutdownNow();
    worker.shutdownNow();
    releaseLock(); // as the operating system would on a crash
  }

  /** Builds a {@link GadgetDrone}. */
  public static final class Builder {
    private TransportClient transport;
    private String token;
    private Path workspaceDir;
    private String hostname = Workspace.localHostname();
    private Function<ProviderConfig, LlmClient> llmClients;
    private List<Tool> tools = CodingTools.all();
    private CommandSandbox sandbox = CommandSandbox.of(SandboxPolicy.WORKSPACE_WRITE);
    private int keptCheckpoints = GitChanges.DEFAULT_KEPT_CHECKPOINTS;
    private Function<Path, TurnTools> turnTools;
    private List<Path> userSkills = List.of();
    private boolean createTools;
    private Path userTools;
    private AgentLimits limits = AgentLimits.DEFAULTS;
    private ToolDeferral deferral = ToolDeferral.DEFAULT;
    private dev.gadget.core.agent.catalog.SemanticToolIndex embeddings;
    private Path toolExamples;
    private Duration heartbeatInterval = Duration.ofSeconds(10);
    private Duration ackTimeout = Duration.ofSeconds(15);
    private Duration stopTimeout = Duration.ofSeconds(5);
    private Duration gitTimeout = Duration.ofMinutes(5);
    private Clock clock = Clock.systemUTC();
    private long logLimit = 1_048_576;
    private DroneListener listener = new DroneListener() {};

    /** How to reach the server. Required. */
    public Builder transport(TransportClient transport) {
      this.transport = transport;
      return this;
    }

    /** The drone token. Required; never logged. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** The workspace directory. Required. */
    public Builder workspaceDir(Path dir) {
      this.workspaceDir = dir;
      return this;
    }

    /** The host name reported to the server (default: this machine's). */
    public Builder hostname(String hostname) {
      this.hostname = Objects.requireNonNull(hostname, "hostname");
      return this;
    }

    /** Makes the LLM client for a work order's provider. Required. */
    public Builder llmClients(Function<ProviderConfig, LlmClient> llmClients) {
      this.llmClients = llmClients;
      return this;
    }

    /** The tools offered to the model (default: {@link CodingTools#all()}). */
    public Builder tools(List<Tool> tools) {
      this.tools = List.copyOf(tools);
      return this;
    }

    /**
     * Folders of Agent Skills of the drone host's user (such as {@code ~/.agents/skills}), offered
     * with the project's and readable by commands; default none (docs/SKILLS-AND-TOOLS.md, "Skills").
     */
    public Builder userSkills(List<Path> folders) {
      this.userSkills = List.copyOf(folders);
      return this;
    }

    /**
     * The drone host user's own library of tools ({@code create_tool}'s {@code scope: "user"}),
     * offered in every project and readable by commands; default none (docs/SKILLS-AND-TOOLS.md).
     */
    public Builder userTools(Path folder) {
      this.userTools = folder;
      return this;
    }

    /**
     * Whether the agent may write itself tools with {@code create_tool}: default false, never
     * under a read-only sandbox (docs/SKILLS-AND-TOOLS.md, "Synthesized tools").
     */
    public Builder createTools(boolean allowed) {
      this.createTools = allowed;
      return this;
    }

    /**
     * Tools for each turn, made for its checked-out project directory (none by default): called
     * on the drone's worker thread before the agent starts; the tools are offered after
     * {@link #tools}'s, and the drone closes them when the turn ends. An exception ends the turn
     * as an error with the exception's message.
     */
    public Builder turnTools(Function<Path, TurnTools> turnTools) {
      this.turnTools = turnTools;
      return this;
    }

    /**
     * When tools are deferred, to be found with {@code search_tools} (default
     * {@link ToolDeferral#DEFAULT}: past 10% of the context budget); as the loop's. */
    public Builder toolDeferral(ToolDeferral deferral) {
      this.deferral = Objects.requireNonNull(deferral, "deferral");
      return this;
    }

    /**
     * The embeddings {@code search_tools} also ranks by, for every turn; {@code null} (default):
     * lexical only. See {@link dev.gadget.core.agent.AgentLoop.Builder#toolEmbeddings}. */
    public Builder toolEmbeddings(dev.gadget.core.agent.catalog.SemanticToolIndex index) {
      this.embeddings = index;
      return this;
    }

    /**
     * Turns' models write examples of tools for {@code search_tools}, once per definition, kept
     * in {@code dir} (it must exist); default none. See {@code ModelToolExamples}. */
    public Builder toolExamples(Path dir) {
      this.toolExamples = dir;
      return this;
    }

    /**
     * How many turns' checkpoints each project keeps (default
     * {@value GitChanges#DEFAULT_KEPT_CHECKPOINTS}); older ones are pruned at each turn's end. */
    public Builder keptCheckpoints(int turns) {
      if (turns < 1) {
        throw new IllegalArgumentException("a project keeps the checkpoints of 1 turn or more");
      }
      this.keptCheckpoints = turns;
      return this;
    }

    /**
     * Where the agent's commands run (default: a {@link SandboxPolicy#WORKSPACE_WRITE} bubblewrap
     * sandbox, no network). The drone hides its whole workspace from commands but the turn's
     * project, {@code .gadget/} included. Where bubblewrap is missing the drone says so when it
     * starts and {@code run_command} refuses every command, unless this is
     * {@link CommandSandbox#none()}: the operator's explicit choice of no sandbox.
     */
    public Builder sandbox(CommandSandbox sandbox) {
      this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
      return this;
    }

    /** The loop's limits. */
    public Builder limits(AgentLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** How often a running turn sends a heartbeat (10 s). */
    public Builder heartbeatInterval(Duration d) {
      this.heartbeatInterval = Objects.requireNonNull(d, "heartbeatInterval");
      return this;
    }

    /** How long to wait for the server's acknowledgements (15 s). */
    public Builder ackTimeout(Duration d) {
      this.ackTimeout = Objects.requireNonNull(d, "ackTimeout");
      return this;
    }

    /** How long {@link GadgetDrone#close()} waits for the turn's end to be acknowledged (5 s). */
    public Builder stopTimeout(Duration d) {
      this.stopTimeout = Objects.requireNonNull(d, "stopTimeout");
      return this;
    }

    /** How long one git command may take (5 min). */
    public Builder gitTimeout(Duration d) {
      this.gitTimeout = Objects.requireNonNull(d, "gitTimeout");
      return this;
    }

    /** Stamps files. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The most {@code .gadget/logs/drone.log} may hold before it is rotated to
     * {@code drone.log.1} (1 MB; so at most twice that on disk). At least 1,024 bytes.
     */
    public Builder logLimit(long bytes) {
      if (bytes < 1_024) {
        throw new IllegalArgumentException("logLimit must be at least 1024 bytes; got " + bytes);
      }
      this.logLimit = bytes;
      return this;
    }

    /** Hears what the drone does. */
    public Builder listener(DroneListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** The drone, not started. */
    public GadgetDrone build() {
      return new GadgetDrone(this);
    }
  }
}
