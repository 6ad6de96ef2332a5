package dev.gadget.core.drone;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.AgentLimits;
import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.stream.StreamChunk;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.core.transport.TransportException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * <p>Wire it with {@link #builder()}, {@link #start()} it, {@link #close()} it. Thread-safe.
 */
public final class GadgetDrone implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GadgetDrone.class);

  private final TransportClient transport;
  private final String token;
  private final Path workspaceDir;
  private final String hostname;
  private final Function<ProviderConfig, LlmClient> llmClients;
  private final List<Tool> tools;
  private final AgentLimits limits;
  private final Duration heartbeatInterval;
  private final Duration ackTimeout;
  private final Git git;
  private final Clock clock;
  private final DroneListener listener;
  private final ScheduledExecutorService timer;
  private final ExecutorService worker;

  private Workspace workspace;
  private volatile Connection connection;
  private final Object state = new Object();
  private Job job;
  private WorkspaceMode mode = WorkspaceMode.IDLE;
  private volatile boolean handlersReady;
  private volatile boolean closed;

  private GadgetDrone(Builder b) {
    this.transport = Objects.requireNonNull(b.transport, "transport");
    this.token = Objects.requireNonNull(b.token, "token");
    this.workspaceDir = Objects.requireNonNull(b.workspaceDir, "workspaceDir");
    this.hostname = b.hostname;
    this.llmClients = Objects.requireNonNull(b.llmClients, "llmClients");
    this.tools = b.tools;
    this.limits = b.limits;
    this.heartbeatInterval = b.heartbeatInterval;
    this.ackTimeout = b.ackTimeout;
    this.git = new Git(b.gitTimeout);
    this.clock = b.clock;
    this.listener = b.listener;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "gadget-drone-timer"));
    this.worker = Executors.newSingleThreadExecutor(r -> daemon(r, "gadget-drone-worker"));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Opens the workspace and connects. Returns once connecting has begun; the
   * {@link DroneListener} hears when the server accepts or refuses.
   *
   * @throws WorkspaceException if {@code .gadget/workspace.json} is corrupt
   */
  public void start() {
    workspace = Workspace.open(workspaceDir, hostname, clock);
    log.info("workspace {} in {}", workspace.id(), workspace.dir());
    Connection c = transport.connect(Protocol.DRONE_NAMESPACE, this::auth, new Lifecycle());
    connection = c;
    c.on(Protocol.PROCESS_WORK_ORDER, guarded(Protocol.PROCESS_WORK_ORDER, this::onProcessWorkOrder));
    c.on(Protocol.CANCEL_WORK_ORDER, guarded(Protocol.CANCEL_WORK_ORDER, this::onCancel));
    c.on(Protocol.CRASH_RECOVERY_RESPONSE,
        guarded(Protocol.CRASH_RECOVERY_RESPONSE, this::onCrashRecoveryResponse));
    c.on(Protocol.REQUEST_SESSION_LOCK, guarded(Protocol.REQUEST_SESSION_LOCK, this::onSessionLock));
    c.on(Protocol.REQUEST_WORKSPACE_MODE,
        guarded(Protocol.REQUEST_WORKSPACE_MODE, this::onWorkspaceMode));
    handlersReady = true;
    if (c.isConnected()) {
      askForRecovery(c);
    }
  }

  /** A handler whose bad input is answered with an error instead of silence. */
  private static EventHandler guarded(String event, EventHandler handler) {
    return (args, ack) -> {
      try {
        handler.handle(args, ack);
      } catch (IllegalArgumentException | WorkspaceException e) {
        log.warn("cannot handle '{}' from the server: {}", event, e.getMessage());
        reply(ack, Payloads.OkReply.failure(e.getMessage()));
      }
    };
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
    synchronized (state) {
      return job == null || job.finished ? Optional.empty() : Optional.of(job.turnId);
    }
  }

  /** Cancels a running turn, disconnects, and stops. */
  @Override
  public void close() {
    closed = true;
    Job j;
    synchronized (state) {
      j = job;
    }
    if (j != null && j.run != null) {
      j.run.cancel();
    }
    transport.close();
    timer.shutdownNow();
    worker.shutdownNow();
  }

  /**
   * Stops the drone the way a crash would: the connection drops without a goodbye, the running
   * turn is abandoned (its commands killed) and {@code .gadget/work-order.json} stays where it
   * is. For fault-injection tests and for the demo's crash button; a real crash needs no call.
   */
  public void abandon() {
    closed = true;
    Job j;
    synchronized (state) {
      j = job;
      if (j != null) {
        j.abandoned = true;
      }
    }
    transport.close();
    if (j != null && j.run != null) {
      j.run.cancel();
    }
    timer.shutdownNow();
    worker.shutdownNow();
  }

  private JsonNode auth() {
    ObjectNode auth = GadgetJson.mapper().createObjectNode()
        .put("token", token)
        .put("workspaceId", workspace.id())
        .put("hostname", hostname)
        .put("workspaceDir", workspace.dir().toString());
    synchronized (state) {
      if (job != null && !job.finished && !job.pendingRecovery) {
        auth.put("activeTurnId", job.turnId);
      }
      auth.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
    }
    return auth;
  }

  private final class Lifecycle implements TransportClient.ClientListener {
    @Override
    public void onConnect(Connection c) {
      safely(listener::onConnected);
      workspace.update(d -> d.withRegistration(new WorkspaceData.Registration(
          status().name().toLowerCase(), clock.instant())));
      if (handlersReady) {
        askForRecovery(c);
      }
      emitStatus();
    }

    @Override
    public void onConnectError(Connection c, TransportException error) {
      log.error("the server refused this drone: {}", error.getMessage());
      safely(() -> listener.onRefused(error.getMessage()));
    }

    @Override
    public void onDisconnect(Connection c, String reason, boolean willReconnect) {
      log.warn("disconnected from the server ({}){}", reason,
          willReconnect ? "; reconnecting" : "");
      safely(() -> listener.onDisconnected(reason));
    }
  }

  private DroneStatus status() {
    synchronized (state) {
      return job == null || job.finished ? DroneStatus.AVAILABLE : DroneStatus.BUSY;
    }
  }

  private void emitStatus() {
    String turnId;
    DroneStatus s;
    synchronized (state) {
      boolean free = job == null || job.finished;
      turnId = free ? null : job.turnId;
      s = free ? DroneStatus.AVAILABLE : DroneStatus.BUSY;
    }
    Connection c = connection;
    if (c != null && !closed) {
      c.emit(Protocol.DRONE_STATUS, Protocol.args(new Payloads.DroneStatusEvent(null, s, turnId)));
    }
    safely(() -> listener.onStatus(s, turnId));
  }

  // ------------------------------------------------------------ crash recovery

  /**
   * Asks the server what to do with a work order cached before a crash. Asked on every
   * connection while the answer is pending, and only once the handlers are registered, so the
   * answer cannot arrive unheard.
   */
  private void askForRecovery(Connection c) {
    WorkOrderCache cache;
    synchronized (state) {
      if (job != null && !job.pendingRecovery) {
        return;
      }
      Optional<WorkOrderCache> cached;
      try {
        cached = workspace.readWorkOrder();
      } catch (WorkspaceException e) {
        Path aside = workspace.quarantineWorkOrder();
        log.error("{}; moved it to {}", e.getMessage(), aside);
        return;
      }
      if (cached.isEmpty()) {
        return;
      }
      cache = cached.get();
      if (job == null) {
        job = new Job(cache.turnId(), cache.lastSeq() + 1);
        job.pendingRecovery = true;
      }
    }
    log.warn("found the work order of turn {} from before a crash; asking the server",
        cache.turnId());
    c.emit(Protocol.REQUEST_CRASH_RECOVERY, Protocol.args(new Payloads.CrashRecoveryRequest(
        workspace.id(), cache.turnId(), cache.chatSessionId(), cache.workOrderId(),
        cache.journal().size())));
  }

  private void onCrashRecoveryResponse(List<JsonNode> args, Ack ack) {
    Payloads.CrashRecoveryResponse r = Protocol.payload(args, Payloads.CrashRecoveryResponse.class);
    WorkOrderCache cache;
    boolean retry = Payloads.CrashRecoveryResponse.RETRY.equals(r.action()) && r.retry() != null;
    synchronized (state) {
      if (job == null || !job.pendingRecovery || !job.turnId.equals(r.turnId())) {
        return;
      }
      cache = workspace.readWorkOrder().orElse(null);
      if (retry && cache != null) {
        job = new Job(r.turnId(), r.retry().firstSeq());
      } else {
        workspace.deleteWorkOrder();
        job = null;
      }
    }
    if (retry && cache != null) {
      log.info("retrying turn {} after a crash{}", r.turnId(),
          r.retry().resume() ? ", resuming after the journaled tool rounds" : "");
      begin(r.retry().workOrder(), r.retry().firstSeq(),
          r.retry().resume() ? cache.journal() : List.of());
    } else {
      log.info("the server discarded turn {} from before the crash", r.turnId());
      emitStatus();
    }
  }

  // ------------------------------------------------------------ work orders

  /** The turn this drone runs. Guarded by {@code state}. */
  private final class Job {
    final String turnId;
    long nextSeq;
    AgentRun run;
    WorkOrderCache cache;
    boolean abandoned;
    /** Restored from the cache at start; waiting for the server's recovery answer. */
    boolean pendingRecovery;
    /** Its end was reported; only the server's acknowledgement is awaited. */
    boolean finished;
    /** Cancelled before the loop started (during the checkout). */
    boolean cancelRequested;
    ScheduledFuture<?> heartbeat;
    /** The worker thread while it checks out and starts; a cancel interrupts it. */
    Thread starting;

    Job(String turnId, long firstSeq) {
      this.turnId = turnId;
      this.nextSeq = firstSeq;
    }
  }

  private void onProcessWorkOrder(List<JsonNode> args, Ack ack) {
    Payloads.ProcessWorkOrder p;
    try {
      p = Protocol.payload(args, Payloads.ProcessWorkOrder.class);
    } catch (IllegalArgumentException e) {
      reply(ack, new Payloads.WorkOrderAck(false, e.getMessage()));
      return;
    }
    WorkOrder order = p.workOrder();
    synchronized (state) {
      if (job != null && !job.finished) {
        reply(ack, new Payloads.WorkOrderAck(false, job.pendingRecovery
            ? "busy: recovering turn " + job.turnId : "busy: running turn " + job.turnId));
        return;
      }
      if (mode == WorkspaceMode.USER) {
        reply(ack, new Payloads.WorkOrderAck(false, "the workspace is in user mode"));
        return;
      }
      try {
        workspace.projectDir(order.project().slug());
        workspace.writeWorkOrder(WorkOrderCache.of(order, clock.instant(), p.firstSeq() - 1));
      } catch (WorkspaceException e) {
        reply(ack, new Payloads.WorkOrderAck(false, e.getMessage()));
        return;
      }
      job = new Job(order.chatTurn().id(), p.firstSeq());
    }
    reply(ack, new Payloads.WorkOrderAck(true, null));
    begin(order, p.firstSeq(), List.of());
  }

  /** Runs a work order on the worker thread: checkout, then the loop. */
  private void begin(WorkOrder order, long firstSeq, List<WorkOrderCache.Round> journal) {
    emitStatus();
    Job j;
    synchronized (state) {
      j = job;
      mode = WorkspaceMode.AGENT;
      j.cache = WorkOrderCache.of(order, clock.instant(), firstSeq - 1);
      for (WorkOrderCache.Round round : journal) {
        j.cache = j.cache.withRound(round, firstSeq - 1);
      }
      workspace.writeWorkOrder(j.cache);
      long every = heartbeatInterval.toMillis();
      j.heartbeat = timer.scheduleAtFixedRate(() -> heartbeat(j), every, every,
          TimeUnit.MILLISECONDS);
    }
    worker.execute(() -> runJob(j, order, journal));
  }

  private void heartbeat(Job j) {
    long seq;
    synchronized (state) {
      seq = j.nextSeq - 1;
    }
    Connection c = connection;
    if (c != null && c.isConnected()) {
      c.emit(Protocol.HEARTBEAT, Protocol.args(new Payloads.Heartbeat(j.turnId, seq)));
    }
  }

  private void runJob(Job j, WorkOrder order, List<WorkOrderCache.Round> journal) {
    boolean cancelledEarly;
    synchronized (state) {
      cancelledEarly = j.cancelRequested;
      if (!cancelledEarly) {
        j.starting = Thread.currentThread();
      }
    }
    try {
      if (cancelledEarly) {
        complete(j, TurnStatus.CANCELLED, TurnStats.EMPTY, "cancelled before the agent started");
        return;
      }
      Path projectDir = workspace.projectDir(order.project().slug());
      boolean cloned = git.cloneOrFetch(order.project().gitUrl(), projectDir);
      recordProject(order.project(), cloned);
      LlmClient llm = llmClients.apply(order.provider());
      AgentLoop loop = AgentLoop.builder().llmClient(llm).tools(tools).limits(limits)
          .clock(clock).build();
      AgentRequest request = AgentRequest.builder(projectDir, order.provider().modelId(),
              order.chatTurn().prompt())
          .projectName(order.project().name())
          .params(order.provider().params())
          .context(order.chatSession().context())
          .mode(order.chatTurn().mode())
          .resume(resumeMessages(journal))
          .build();
      synchronized (state) {
        j.starting = null;
        if (j.abandoned || closed) {
          return;
        }
        if (!j.cancelRequested) {
          j.run = loop.start(request, new Streamer(j));
          return;
        }
      }
      complete(j, TurnStatus.CANCELLED, TurnStats.EMPTY, "cancelled before the agent started");
    } catch (RuntimeException e) {
      boolean cancelled;
      synchronized (state) {
        cancelled = j.cancelRequested;
      }
      if (cancelled) {
        // The cancel interrupted the checkout.
        complete(j, TurnStatus.CANCELLED, TurnStats.EMPTY, "cancelled before the agent started");
        return;
      }
      // Anything that keeps the loop from starting ends the turn; it never hangs.
      log.warn("turn {} cannot start: {}", j.turnId, e.getMessage());
      complete(j, TurnStatus.ERROR, TurnStats.EMPTY, e.getMessage());
    } finally {
      synchronized (state) {
        j.starting = null;
        // a cancel's interrupt must not reach the next work order on this thread
        Thread.interrupted();
      }
    }
  }

  /** The LLM messages of journaled rounds: each assistant reply, then each tool's result. */
  static List<LlmMessage> resumeMessages(List<WorkOrderCache.Round> journal) {
    List<LlmMessage> messages = new ArrayList<>();
    for (WorkOrderCache.Round round : journal) {
      List<LlmToolCall> calls = new ArrayList<>();
      for (ToolCall c : round.calls()) {
        calls.add(new LlmToolCall(c.callId(), c.name(), parseArgs(c.parameters())));
      }
      messages.add(LlmMessage.assistant(round.text(), round.thinking(), calls));
      for (int i = 0; i < calls.size(); i++) {
        String response = round.calls().get(i).response();
        messages.add(LlmMessage.tool(calls.get(i), response == null ? "" : response));
      }
    }
    return messages;
  }

  private static JsonNode parseArgs(String json) {
    try {
      return GadgetJson.mapper().readTree(json);
    } catch (Exception e) {
      return GadgetJson.mapper().getNodeFactory().textNode(json);
    }
  }

  private void recordProject(WorkOrder.ProjectRef project, boolean cloned) {
    workspace.update(d -> {
      List<WorkspaceData.ProjectEntry> entries = new ArrayList<>();
      WorkspaceData.ProjectEntry existing = null;
      for (WorkspaceData.ProjectEntry e : d.projects()) {
        if (e.id().equals(project.id())) {
          existing = e;
        } else {
          entries.add(e);
        }
      }
      entries.add(new WorkspaceData.ProjectEntry(project.id(), project.slug(),
          WorkOrder.ProjectRef.withoutCredentials(project.gitUrl()),
          existing == null || cloned ? clock.instant() : existing.clonedAt(), clock.instant()));
      return d.withProjects(entries);
    });
  }

  /** Turns the loop's events into protocol events with sequence numbers, and journals rounds. */
  private final class Streamer implements AgentListener {
    private final Job job;
    private final StringBuilder thinking = new StringBuilder();
    private final StringBuilder text = new StringBuilder();
    private final List<ToolCall> calls = new ArrayList<>();

    Streamer(Job job) {
      this.job = job;
    }

    @Override
    public void onIteration(int iteration) {
      journalRound();
    }

    private void journalRound() {
      if (calls.isEmpty()) {
        thinking.setLength(0);
        text.setLength(0);
        return;
      }
      synchronized (state) {
        if (job.abandoned) {
          return;
        }
        job.cache = job.cache.withRound(new WorkOrderCache.Round(thinking.toString(),
            text.toString(), calls), job.nextSeq - 1);
        workspace.writeWorkOrder(job.cache);
      }
      thinking.setLength(0);
      text.setLength(0);
      calls.clear();
    }

    @Override
    public void onChunk(StreamChunk chunk) {
      String event;
      Object payload;
      synchronized (state) {
        if (job.abandoned) {
          return;
        }
        long seq = job.nextSeq++;
        if (chunk instanceof StreamChunk.Thinking t) {
          thinking.append(t.data());
          event = Protocol.THINKING;
          payload = new Payloads.TextEvent(job.turnId, seq, t.data());
        } else if (chunk instanceof StreamChunk.Response r) {
          text.append(r.data());
          event = Protocol.RESPONSE;
          payload = new Payloads.TextEvent(job.turnId, seq, r.data());
        } else {
          ToolCall call = ((StreamChunk.ToolCallChunk) chunk).call();
          calls.add(call);
          event = Protocol.TOOL_CALL;
          payload = new Payloads.ToolCallEvent(job.turnId, seq, call);
        }
      }
      Connection c = connection;
      if (c != null) {
        c.emit(event, Protocol.args(payload));
      }
    }

    @Override
    public void onComplete(AgentOutcome outcome) {
      complete(job, outcome.status().toTurnStatus(), outcome.stats(), outcome.message());
    }
  }

  /** Reports the end of a turn until the server acknowledges it, then clears the cache. */
  private void complete(Job j, TurnStatus status, TurnStats stats, String message) {
    long seq;
    synchronized (state) {
      if (j.abandoned) {
        return;
      }
      if (j.finished) {
        return;
      }
      j.finished = true;
      seq = j.nextSeq++;
      if (j.heartbeat != null) {
        j.heartbeat.cancel(false);
      }
    }
    log.info("turn {} ended: {}{}", j.turnId, status.name().toLowerCase(),
        message == null ? "" : " (" + message + ")");
    safely(() -> listener.onTurnEnded(j.turnId, status.name().toLowerCase(), message));
    Payloads.WorkOrderComplete done =
        new Payloads.WorkOrderComplete(j.turnId, seq, status, stats, message);
    sendCompletion(j, done, 0);
  }

  private void sendCompletion(Job j, Payloads.WorkOrderComplete done, int attempt) {
    Connection c = connection;
    if (c == null || closed) {
      return;
    }
    c.emitWithAck(Protocol.WORK_ORDER_COMPLETE, Protocol.args(done), ackTimeout)
        .whenComplete((reply, error) -> {
          if (error != null) {
            if (!closed) {
              log.warn("the server did not acknowledge the end of turn {} ({}); retrying",
                  j.turnId, error.getMessage());
              timer.schedule(() -> sendCompletion(j, done, attempt + 1),
                  Math.min(5_000, 100L << Math.min(attempt, 6)), TimeUnit.MILLISECONDS);
            }
            return;
          }
          synchronized (state) {
            if (job == j) {
              job = null;
              mode = WorkspaceMode.IDLE;
              try {
                workspace.deleteWorkOrder();
              } catch (WorkspaceException e) {
                log.error(e.getMessage());
              }
            }
          }
          emitStatus();
        });
  }

  private void onCancel(List<JsonNode> args, Ack ack) {
    Payloads.CancelWorkOrder p = Protocol.payload(args, Payloads.CancelWorkOrder.class);
    AgentRun run = null;
    boolean mine;
    synchronized (state) {
      mine = job != null && !job.finished && !job.pendingRecovery
          && job.turnId.equals(p.turnId());
      if (mine) {
        run = job.run;
        // Still checking out the project: the loop will not start, and git is stopped.
        job.cancelRequested = true;
        if (run == null && job.starting != null) {
          job.starting.interrupt();
        }
      }
    }
    if (run != null) {
      log.info("cancelling turn {}", p.turnId());
      run.cancel();
    }
    reply(ack, mine ? Payloads.OkReply.success()
        : Payloads.OkReply.failure("not running turn " + p.turnId()));
  }

  private void onSessionLock(List<JsonNode> args, Ack ack) {
    Payloads.SessionLock p = Protocol.payload(args, Payloads.SessionLock.class);
    try {
      workspace.projectDir(p.project().slug());
      workspace.update(d -> d.with(
          new WorkspaceData.SessionLock(p.sessionId(), p.sessionName(), clock.instant()),
          new WorkspaceData.ProjectLock(p.project().id(), p.project().slug(),
              WorkOrder.ProjectRef.withoutCredentials(p.project().gitUrl()), clock.instant())));
      reply(ack, Payloads.OkReply.success());
    } catch (WorkspaceException e) {
      reply(ack, Payloads.OkReply.failure(e.getMessage()));
    }
  }

  private void onWorkspaceMode(List<JsonNode> args, Ack ack) {
    Payloads.WorkspaceModeRequest p =
        Protocol.payload(args, Payloads.WorkspaceModeRequest.class);
    synchronized (state) {
      boolean running = job != null && !job.finished;
      if (running && p.mode() != WorkspaceMode.AGENT) {
        reply(ack, Payloads.OkReply.failure("the agent is running turn " + job.turnId));
        return;
      }
      if (!running && p.mode() == WorkspaceMode.AGENT) {
        reply(ack, Payloads.OkReply.failure("agent mode is set by a work order"));
        return;
      }
      mode = p.mode();
    }
    reply(ack, Payloads.OkReply.success());
  }

  private static void reply(Ack ack, Object payload) {
    if (ack != null) {
      ack.send(Protocol.args(payload));
    }
  }

  private static void safely(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("DroneListener threw; ignored", e);
    }
  }

  /** Builds a {@link GadgetDrone}. */
  public static final class Builder {
    private TransportClient transport;
    private String token;
    private Path workspaceDir;
    private String hostname = defaultHostname();
    private Function<ProviderConfig, LlmClient> llmClients;
    private List<Tool> tools = CodingTools.all();
    private AgentLimits limits = AgentLimits.DEFAULTS;
    private Duration heartbeatInterval = Duration.ofSeconds(10);
    private Duration ackTimeout = Duration.ofSeconds(15);
    private Duration gitTimeout = Duration.ofMinutes(5);
    private Clock clock = Clock.systemUTC();
    private DroneListener listener = new DroneListener() {};

    private static String defaultHostname() {
      try {
        return java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException e) {
        return "localhost";
      }
    }

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
