package dev.gadget.core.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.Tokens;
import dev.gadget.core.stream.BlockAggregator;
import dev.gadget.core.stream.StreamChunk;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.ConnectionRefusedException;
import dev.gadget.core.transport.EventHandler;
import dev.gadget.core.transport.TransportServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Gadget server: authenticates pages and drones, turns prompts into chat turns and work
 * orders, routes each work order to a drone, aggregates the drone's stream into blocks that it
 * stores one by one, and forwards the live stream to every page watching the session.
 *
 * <p>Failures the seeds left open are handled: a drone that disconnects mid-turn gets
 * {@link Builder#droneGracePeriod} to come back before its turn ends as
 * {@link TurnStatus#INTERRUPTED}; a drone that falls silent for {@link Builder#silenceTimeout}
 * is given up the same way; a drone that crashed and restarts asks for recovery and is told to
 * discard or retry (resuming after its journaled tool rounds); turns still running when the
 * server (re)starts end as interrupted; a page cancels a turn, and the turn ends as cancelled even
 * if the drone never confirms. Every watching page is told how each turn ends.
 *
 * <p>Wire it with {@link #builder()}; {@link #start()} it once; {@link #close()} it once.
 * Thread-safe. See {@code docs/PROTOCOL.md} for the events.
 */
public final class GadgetServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GadgetServer.class);

  private final ChatStore store;
  private final Tokens tokens;
  private final TransportServer transport;
  private final Function<ChatSession, ProviderConfig> providers;
  private final Clock clock;
  private final Duration droneGracePeriod;
  private final Duration silenceTimeout;
  private final Duration cancelTimeout;
  private final Duration ackTimeout;
  private final ScheduledExecutorService timer;

  private final Map<Connection, Page> pages = new ConcurrentHashMap<>();
  private final Map<String, Set<Connection>> watchers = new ConcurrentHashMap<>();
  private final Map<String, Drone> drones = new ConcurrentHashMap<>();
  private final Map<String, LiveTurn> live = new ConcurrentHashMap<>();
  /** One monitor per chat session: guards its live turn, its room and the snapshot. */
  private final Map<String, Object> sessionLocks = new ConcurrentHashMap<>();
  private final Object routing = new Object();
  private volatile boolean started;
  private volatile boolean closed;
  private ScheduledFuture<?> silenceCheck;

  private GadgetServer(Builder b) {
    this.store = Objects.requireNonNull(b.store, "store");
    this.transport = Objects.requireNonNull(b.transport, "transport");
    this.providers = Objects.requireNonNull(b.providers, "provider");
    this.clock = b.clock;
    this.tokens = new Tokens(store, clock);
    this.droneGracePeriod = b.droneGracePeriod;
    this.silenceTimeout = b.silenceTimeout;
    this.cancelTimeout = b.cancelTimeout;
    this.ackTimeout = b.ackTimeout;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gadget-server-timer");
      t.setDaemon(true);
      return t;
    });
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Ends every turn a previous run left {@link TurnStatus#PROCESSING} as interrupted, then starts
   * accepting pages and drones.
   */
  public synchronized void start() {
    if (started) {
      throw new IllegalStateException("already started");
    }
    started = true;
    for (ChatTurn t : store.listUnfinishedTurns()) {
      if (store.finalizeTurn(t.id(), TurnStatus.INTERRUPTED, t.stats(),
          "the server restarted while the turn was running", clock.instant())) {
        log.info("turn {} was running when the server stopped; ended as interrupted", t.id());
      }
    }
    long period = Math.max(50, silenceTimeout.toMillis() / 4);
    silenceCheck = timer.scheduleAtFixedRate(
        this::checkSilence, period, period, TimeUnit.MILLISECONDS);
    transport.start(new Acceptor());
  }

  /** Stops accepting, closes every connection. Running turns stay as they are in the store. */
  @Override
  public synchronized void close() {
    closed = true;
    if (silenceCheck != null) {
      silenceCheck.cancel(false);
    }
    transport.close();
    timer.shutdownNow();
  }

  /** The store this server writes to. */
  public ChatStore store() {
    return store;
  }

  // ---------------------------------------------------------------- connections

  private record PagePrincipal(String userId, String tokenId) {}

  private record DronePrincipal(String userId, String tokenId, String workspaceId,
      String hostname, String workspaceDir, String activeTurnId, WorkspaceMode mode) {}

  private final class Acceptor implements ConnectionAcceptor {
    @Override
    public Object authenticate(String namespace, JsonNode auth) {
      String token = auth.path("token").asText(null);
      if (Protocol.PAGE_NAMESPACE.equals(namespace)) {
        StoredToken t = check(token, TokenKind.USER);
        return new PagePrincipal(t.userId(), t.id());
      }
      if (Protocol.DRONE_NAMESPACE.equals(namespace)) {
        StoredToken t = check(token, TokenKind.DRONE);
        String workspaceId = auth.path("workspaceId").asText("");
        if (workspaceId.isBlank()) {
          throw new ConnectionRefusedException("a drone must send its workspaceId", null);
        }
        return new DronePrincipal(t.userId(), t.id(), workspaceId,
            auth.path("hostname").asText("unknown"), auth.path("workspaceDir").asText(""),
            auth.path("activeTurnId").asText(null),
            "user".equals(auth.path("mode").asText()) ? WorkspaceMode.USER : WorkspaceMode.IDLE);
      }
      throw new ConnectionRefusedException("Invalid namespace", null);
    }

    private StoredToken check(String token, TokenKind kind) {
      if (token == null || token.isEmpty()) {
        throw new ConnectionRefusedException("missing token", null);
      }
      Optional<StoredToken> t;
      try {
        t = tokens.authenticate(token, kind);
      } catch (StoreException e) {
        log.warn("cannot check a token: {}", e.getMessage());
        throw new ConnectionRefusedException("the server cannot check tokens right now", null);
      }
      if (t.isEmpty()) {
        boolean otherKind = tokens.authenticate(token,
            kind == TokenKind.USER ? TokenKind.DRONE : TokenKind.USER).isPresent();
        throw new ConnectionRefusedException(otherKind
            ? "this is a " + (kind == TokenKind.USER ? "drone" : "user")
                + " token; it cannot connect here"
            : "invalid token", null);
      }
      return t.get();
    }

    @Override
    public void onConnect(Connection connection, Object principal) {
      if (principal instanceof PagePrincipal p) {
        pageConnected(connection, p);
      } else if (principal instanceof DronePrincipal d) {
        droneConnected(connection, d);
      }
    }

    @Override
    public void onDisconnect(Connection connection, Object principal, String reason) {
      if (principal instanceof PagePrincipal) {
        pages.remove(connection);
        for (Set<Connection> room : watchers.values()) {
          room.remove(connection);
        }
      } else if (principal instanceof DronePrincipal d) {
        droneDisconnected(connection, d, reason);
      }
    }
  }

  /** Registers a handler that parses its payload and turns any failure into an error ack. */
  private static <T> void handle(Connection c, String event, Class<T> type,
      PayloadHandler<T> handler) {
    EventHandler h = (args, ack) -> {
      T payload;
      try {
        payload = Protocol.payload(args, type);
      } catch (IllegalArgumentException e) {
        log.debug("bad '{}' payload from {}: {}", event, c.id(), e.getMessage());
        reply(ack, new Payloads.ErrorReply("bad " + event + " payload: " + e.getMessage()));
        return;
      }
      try {
        handler.handle(payload, ack);
      } catch (RequestException e) {
        reply(ack, new Payloads.ErrorReply(e.getMessage()));
      } catch (StoreException e) {
        log.warn("store failed while handling '{}': {}", event, e.getMessage());
        reply(ack, new Payloads.ErrorReply("the server cannot reach its store: " + e.getMessage()));
      }
    };
    c.on(event, h);
  }

  @FunctionalInterface
  private interface PayloadHandler<T> {
    void handle(T payload, Ack ack);
  }

  /** A request the server refuses, with a message for the page. */
  private static final class RequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RequestException(String message) {
      super(message, null, false, false);
    }
  }

  private static void reply(Ack ack, Object payload) {
    if (ack != null) {
      ack.send(Protocol.args(payload));
    }
  }

  // ---------------------------------------------------------------- pages

  private record Page(String userId) {}

  private void pageConnected(Connection c, PagePrincipal p) {
    String userId = p.userId();
    pages.put(c, new Page(userId));
    handle(c, Protocol.LIST_PROJECTS, Payloads.ListSessions.class, (req, ack) ->
        reply(ack, Map.of("projects", store.listProjects(userId))));
    handle(c, Protocol.CREATE_PROJECT, Payloads.CreateProject.class, (req, ack) -> {
      Project project;
      try {
        project = new Project(Ids.next(), userId, required(req.name(), "name"),
            required(req.slug(), "slug"), required(req.gitUrl(), "gitUrl"), clock.instant());
      } catch (IllegalArgumentException e) {
        throw new RequestException(e.getMessage());
      }
      store.createProject(project);
      reply(ack, Map.of("project", project));
    });
    handle(c, Protocol.LIST_SESSIONS, Payloads.ListSessions.class, (req, ack) ->
        reply(ack, Map.of("sessions", store.listSessions(userId, req.projectId()))));
    handle(c, Protocol.CREATE_SESSION, Payloads.CreateSession.class, (req, ack) -> {
      Project project = ownedProject(userId, req.projectId());
      String name = req.name() == null || req.name().isBlank() ? "New chat" : req.name();
      ChatSession s = new ChatSession(Ids.next(), userId, project.id(), name, null, clock.instant());
      store.createSession(s);
      reply(ack, Map.of("session", s));
    });
    handle(c, Protocol.LIST_DRONES, Payloads.ListSessions.class, (req, ack) ->
        reply(ack, Map.of("drones", store.listDrones(userId))));
    handle(c, Protocol.WATCH_SESSION, Payloads.WatchSession.class, (req, ack) ->
        reply(ack, watch(c, ownedSession(userId, req.sessionId()))));
    handle(c, Protocol.UNWATCH_SESSION, Payloads.WatchSession.class, (req, ack) -> {
      Set<Connection> room = watchers.get(req.sessionId());
      if (room != null) {
        room.remove(c);
      }
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, Protocol.SUBMIT_PROMPT, Payloads.SubmitPrompt.class, (req, ack) ->
        reply(ack, new Payloads.SubmitReply(submit(userId, req), null)));
    handle(c, Protocol.CANCEL_TURN, Payloads.CancelTurn.class, (req, ack) -> {
      cancel(userId, req.turnId());
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, Protocol.REQUEST_SESSION_LOCK, Payloads.SessionLock.class, (req, ack) ->
        lockSession(userId, req, ack));
    handle(c, Protocol.REQUEST_WORKSPACE_MODE, Payloads.WorkspaceModeRequest.class,
        (req, ack) -> workspaceMode(userId, req, ack));
  }

  private static String required(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new RequestException(name + " is required");
    }
    return value;
  }

  private Project ownedProject(String userId, String projectId) {
    return store.findProject(required(projectId, "projectId"))
        .filter(p -> p.userId().equals(userId))
        .orElseThrow(() -> new RequestException("project not found"));
  }

  private ChatSession ownedSession(String userId, String sessionId) {
    return store.findSession(required(sessionId, "sessionId"))
        .filter(s -> s.userId().equals(userId))
        .orElseThrow(() -> new RequestException("chat session not found"));
  }

  private Object sessionLock(String sessionId) {
    return sessionLocks.computeIfAbsent(sessionId, k -> new Object());
  }

  private Payloads.SessionSnapshot watch(Connection page, ChatSession session) {
    Set<Connection> room = watchers.computeIfAbsent(session.id(), k -> ConcurrentHashMap.newKeySet());
    // Under the session's lock no turn starts or ends, no stream event is applied and no block
    // is stored: reading the store, taking the open block and joining the room happen at one
    // point of the stream, so the page sees every later event exactly once.
    synchronized (sessionLock(session.id())) {
      List<ChatTurn> turns = store.listTurns(session.id());
      List<Payloads.LiveTurn> liveTurns = new ArrayList<>();
      for (LiveTurn t : live.values()) {
        if (t.turn.sessionId().equals(session.id())) {
          liveTurns.add(new Payloads.LiveTurn(t.turn.id(), t.lastSeq,
              t.aggregator.openBlock().orElse(null)));
        }
      }
      room.add(page);
      return new Payloads.SessionSnapshot(session.id(), turns, liveTurns);
    }
  }

  /** Tells every page of {@code userId} that one of its drones changed status. */
  private void toUserPages(String userId, Payloads.DroneStatusEvent status) {
    List<JsonNode> args = Protocol.args(status);
    pages.forEach((connection, page) -> {
      if (page.userId().equals(userId)) {
        connection.emit(Protocol.DRONE_STATUS, args);
      }
    });
  }

  private void toWatchers(String sessionId, String event, Object payload) {
    Set<Connection> room = watchers.get(sessionId);
    if (room == null || room.isEmpty()) {
      return;
    }
    List<JsonNode> args = Protocol.args(payload);
    for (Connection c : room) {
      c.emit(event, args);
    }
  }

  // ---------------------------------------------------------------- turns

  /** A turn running on a drone, with its aggregation state. Guarded by its session's lock. */
  private final class LiveTurn {
    final ChatTurn turn;
    final WorkOrder workOrder;
    final String droneId;
    /** The session's lock: guards every mutable field. */
    final Object lock;
    final BlockAggregator aggregator;
    long lastSeq = -1;
    Instant lastEventAt;
    boolean ended;
    ScheduledFuture<?> graceTimer;
    ScheduledFuture<?> cancelTimer;

    LiveTurn(ChatTurn turn, WorkOrder workOrder, String droneId) {
      this.lock = sessionLock(turn.sessionId());
      this.turn = turn;
      this.workOrder = workOrder;
      this.droneId = droneId;
      this.aggregator = new BlockAggregator(this::store, clock, 0);
      this.lastEventAt = clock.instant();
    }

    private void store(TurnBlock block) {
      try {
        store.appendBlock(turn.id(), block);
      } catch (StoreException e) {
        // The pages still get the stream; the block is lost from the store only.
        log.error("could not store block {} of turn {}: {}", block.seq(), turn.id(),
            e.getMessage());
      }
    }
  }

  private String submit(String userId, Payloads.SubmitPrompt req) {
    ChatSession session = ownedSession(userId, req.sessionId());
    String prompt = required(req.prompt(), "prompt");
    LiveTurn liveTurn;
    Drone drone;
    Connection droneConnection;
    synchronized (routing) {
      for (LiveTurn t : live.values()) {
        if (t.turn.sessionId().equals(session.id())) {
          throw new RequestException("a turn is already running in this chat session");
        }
      }
      drone = pickDrone(userId, session.workspaceId(), null);
      Project project = ownedProject(userId, session.projectId());
      List<ChatTurn> history = store.listTurns(session.id());
      long seq = history.isEmpty() ? 0 : history.get(history.size() - 1).seq() + 1;
      ChatTurn turn = ChatTurn.start(
          Ids.next(), session.id(), userId, seq, prompt, req.mode(), clock.instant());
      WorkOrder order = new WorkOrder(Ids.next(), WorkOrder.ProjectRef.of(project),
          providers.apply(session),
          new WorkOrder.SessionRef(session.id(), session.name(), context(history)),
          new WorkOrder.TurnRef(turn.id(), turn.mode(), prompt));
      store.createTurn(turn);
      liveTurn = new LiveTurn(turn, order, drone.id);
      drone.status = DroneStatus.BUSY;
      drone.activeTurnId = turn.id();
      droneConnection = drone.connection;
      synchronized (liveTurn.lock) {
        live.put(turn.id(), liveTurn);
        toWatchers(session.id(), Protocol.TURN_STARTED, new Payloads.TurnStarted(turn));
      }
    }
    dispatch(liveTurn, drone, droneConnection,
        new Payloads.ProcessWorkOrder(liveTurn.workOrder, 0, false));
    return liveTurn.turn.id();
  }

  /** Seed 002's session context: each earlier turn as a user and an assistant message. */
  private static List<ChatMessage> context(List<ChatTurn> history) {
    List<ChatMessage> messages = new ArrayList<>();
    for (ChatTurn t : history) {
      messages.add(new ChatMessage(t.createdAt(), Role.USER, t.prompt()));
      StringBuilder thinking = new StringBuilder();
      StringBuilder reply = new StringBuilder();
      for (TurnBlock b : t.blocks()) {
        if (b instanceof TurnBlock.Thinking th) {
          thinking.append(th.content());
        } else if (b instanceof TurnBlock.Responding r) {
          reply.append(r.content());
        }
      }
      if (t.status() != TurnStatus.FINISHED && t.error() != null) {
        reply.append(reply.length() == 0 ? "" : "\n").append("(turn ended: ")
            .append(t.status().name().toLowerCase()).append(")");
      }
      Instant at = t.finishedAt() == null ? t.createdAt() : t.finishedAt();
      messages.add(ChatMessage.assistant(at, thinking.toString(), reply.toString()));
    }
    return messages;
  }

  private Drone pickDrone(String userId, String workspaceId, String droneId) {
    List<Drone> mine = new ArrayList<>();
    for (Drone d : drones.values()) {
      if (d.userId.equals(userId) && d.connection != null && d.connection.isConnected()) {
        mine.add(d);
      }
    }
    if (droneId != null) {
      return mine.stream().filter(d -> d.id.equals(droneId)).findFirst()
          .map(this::checkFree)
          .orElseThrow(() -> new RequestException("that drone is not connected"));
    }
    if (mine.isEmpty()) {
      throw new RequestException("no drone is connected: start a drone with one of your tokens");
    }
    if (workspaceId != null) {
      Optional<Drone> home = mine.stream()
          .filter(d -> d.workspaceId.equals(workspaceId) && d.isFree()).findFirst();
      if (home.isPresent()) {
        return home.get();
      }
    }
    return mine.stream().filter(Drone::isFree).min((a, b) -> a.id.compareTo(b.id))
        .orElseThrow(() -> new RequestException(mine.stream().allMatch(
            d -> d.mode == WorkspaceMode.USER)
                ? "every drone's workspace is in user mode"
                : "every drone is busy"));
  }

  private Drone checkFree(Drone d) {
    if (d.mode == WorkspaceMode.USER) {
      throw new RequestException("the workspace is in user mode");
    }
    if (!d.isFree()) {
      throw new RequestException("the drone is busy");
    }
    return d;
  }

  private void dispatch(LiveTurn t, Drone drone, Connection connection,
      Payloads.ProcessWorkOrder order) {
    connection.emitWithAck(Protocol.PROCESS_WORK_ORDER, Protocol.args(order), ackTimeout)
        .whenComplete((reply, error) -> {
          if (error != null) {
            end(t, TurnStatus.ERROR, null, "the drone did not accept the work order: "
                + error.getMessage());
            return;
          }
          Payloads.WorkOrderAck ack;
          try {
            ack = Protocol.payload(reply, Payloads.WorkOrderAck.class);
          } catch (IllegalArgumentException e) {
            end(t, TurnStatus.ERROR, null, "the drone sent an invalid acknowledgement");
            return;
          }
          if (!ack.accepted()) {
            end(t, TurnStatus.ERROR, null, "the drone refused the work order: " + ack.reason());
            return;
          }
          try {
            store.setTurnDrone(t.turn.id(), drone.id);
            store.setSessionWorkspace(t.turn.sessionId(), drone.workspaceId);
          } catch (StoreException e) {
            log.warn("could not record the drone of turn {}: {}", t.turn.id(), e.getMessage());
          }
        });
  }

  /**
   * Ends a live turn once: flushes its blocks, stores the end, frees the drone, tells the pages.
   * All under the session's lock, so a page that starts watching meanwhile either sees the turn
   * ended in the store or is in the room when the end is announced.
   */
  private void end(LiveTurn t, TurnStatus status, TurnStats stats, String error) {
    TurnStats finalStats = stats == null ? TurnStats.EMPTY : stats;
    synchronized (t.lock) {
      if (t.ended) {
        return;
      }
      t.ended = true;
      long seq = t.lastSeq + 1;
      t.aggregator.complete();
      if (t.graceTimer != null) {
        t.graceTimer.cancel(false);
      }
      if (t.cancelTimer != null) {
        t.cancelTimer.cancel(false);
      }
      try {
        store.finalizeTurn(t.turn.id(), status, finalStats, error, clock.instant());
      } catch (StoreException e) {
        log.error("could not store the end of turn {}: {}", t.turn.id(), e.getMessage());
      }
      Drone d = drones.get(t.droneId);
      if (d != null) {
        d.release(t.turn.id());
      }
      live.remove(t.turn.id(), t);
      log.info("turn {} ended: {}{}", t.turn.id(), status.name().toLowerCase(),
          error == null ? "" : " (" + error + ")");
      toWatchers(t.turn.sessionId(), Protocol.WORK_ORDER_COMPLETE,
          new Payloads.WorkOrderComplete(t.turn.id(), seq, status, finalStats, error));
    }
  }

  private void cancel(String userId, String turnId) {
    LiveTurn t = live.get(required(turnId, "turnId"));
    if (t == null || !t.turn.userId().equals(userId)) {
      Optional<ChatTurn> stored = store.findTurn(turnId).filter(x -> x.userId().equals(userId));
      throw new RequestException(stored.isPresent() ? "the turn has already ended"
          : "turn not found");
    }
    Drone d = drones.get(t.droneId);
    Connection droneConnection = d == null ? null : d.connection;
    if (droneConnection != null) {
      droneConnection.emitWithAck(Protocol.CANCEL_WORK_ORDER,
          Protocol.args(new Payloads.CancelWorkOrder(turnId)), ackTimeout);
    }
    synchronized (t.lock) {
      if (t.cancelTimer == null && !t.ended) {
        t.cancelTimer = schedule(() -> end(t, TurnStatus.CANCELLED, null,
            "cancelled by the user; the drone did not confirm"), cancelTimeout);
      }
    }
  }

  private void checkSilence() {
    Instant now = clock.instant();
    for (LiveTurn t : live.values()) {
      boolean silent;
      synchronized (t.lock) {
        silent = !t.ended && t.graceTimer == null
            && Duration.between(t.lastEventAt, now).compareTo(silenceTimeout) > 0;
      }
      if (silent) {
        end(t, TurnStatus.INTERRUPTED, null,
            "the drone fell silent for more than " + silenceTimeout.toSeconds() + " s");
      }
    }
  }

  // ---------------------------------------------------------------- drones

  /** A drone as the server sees it now. Mutable fields are guarded by {@code routing}. */
  private static final class Drone {
    final String id;
    final String userId;
    final String workspaceId;
    volatile Connection connection;
    volatile DroneStatus status = DroneStatus.AVAILABLE;
    volatile WorkspaceMode mode = WorkspaceMode.IDLE;
    volatile String activeTurnId;

    Drone(String id, String userId, String workspaceId) {
      this.id = id;
      this.userId = userId;
      this.workspaceId = workspaceId;
    }

    /** Frees the drone if it was running {@code turnId}. */
    synchronized void release(String turnId) {
      if (turnId.equals(activeTurnId)) {
        activeTurnId = null;
        if (status == DroneStatus.BUSY) {
          status = DroneStatus.AVAILABLE;
        }
      }
    }

    boolean isFree() {
      return status == DroneStatus.AVAILABLE && activeTurnId == null
          && mode != WorkspaceMode.USER;
    }
  }

  private void droneConnected(Connection c, DronePrincipal p) {
    Instant now = clock.instant();
    DroneRegistration reg;
    Drone drone;
    String staleTurn = null;
    synchronized (routing) {
      // Looked up and saved under the routing lock: two connections of one new workspace
      // share one registration.
      reg = store.findDroneByWorkspace(p.userId(), p.workspaceId())
          .map(r -> new DroneRegistration(r.id(), r.userId(), r.workspaceId(), p.hostname(),
              p.workspaceDir(), DroneStatus.AVAILABLE, r.registeredAt(), now))
          .orElseGet(() -> new DroneRegistration(Ids.next(), p.userId(), p.workspaceId(),
              p.hostname(), p.workspaceDir(), DroneStatus.AVAILABLE, now, now));
      drone = drones.computeIfAbsent(reg.id(), id -> new Drone(id, p.userId(), p.workspaceId()));
      Connection old = drone.connection;
      drone.connection = c;
      drone.mode = p.mode();
      if (old != null && old != c) {
        old.disconnect();
      }
      LiveTurn running = drone.activeTurnId == null ? null : live.get(drone.activeTurnId);
      if (running != null && drone.activeTurnId.equals(p.activeTurnId())) {
        synchronized (running.lock) {
          if (running.graceTimer != null) {
            running.graceTimer.cancel(false);
            running.graceTimer = null;
          }
          running.lastEventAt = now;
        }
        drone.status = DroneStatus.BUSY;
        log.info("drone {} came back and still runs turn {}", drone.id, running.turn.id());
      } else {
        drone.status = DroneStatus.AVAILABLE;
        if (p.activeTurnId() != null && running == null) {
          staleTurn = p.activeTurnId();
        }
      }
      reg = reg.withStatus(drone.status, now);
      store.saveDrone(reg);
    }
    log.info("drone {} connected (workspace {}, host {})", drone.id, p.workspaceId(),
        p.hostname());
    if (staleTurn != null) {
      // The drone runs a turn the server no longer follows (it restarted): stop it.
      c.emit(Protocol.CANCEL_WORK_ORDER, Protocol.args(new Payloads.CancelWorkOrder(staleTurn)));
    }
    Drone me = drone;
    handle(c, Protocol.THINKING, Payloads.TextEvent.class, (e, ack) ->
        stream(me, e.turnId(), e.seq(), new StreamChunk.Thinking(e.data()), Protocol.THINKING, e));
    handle(c, Protocol.RESPONSE, Payloads.TextEvent.class, (e, ack) ->
        stream(me, e.turnId(), e.seq(), new StreamChunk.Response(e.data()), Protocol.RESPONSE, e));
    handle(c, Protocol.TOOL_CALL, Payloads.ToolCallEvent.class, (e, ack) ->
        stream(me, e.turnId(), e.seq(), new StreamChunk.ToolCallChunk(e.call()),
            Protocol.TOOL_CALL, e));
    handle(c, Protocol.HEARTBEAT, Payloads.Heartbeat.class, (e, ack) -> {
      LiveTurn t = live.get(String.valueOf(e.turnId()));
      if (t != null && t.droneId.equals(me.id)) {
        synchronized (t.lock) {
          t.lastEventAt = clock.instant();
        }
      }
    });
    handle(c, Protocol.WORK_ORDER_COMPLETE, Payloads.WorkOrderComplete.class, (e, ack) -> {
      LiveTurn t = live.get(e.turnId());
      if (t != null && t.droneId.equals(me.id)) {
        synchronized (t.lock) {
          t.lastSeq = Math.max(t.lastSeq, e.seq() - 1);
        }
        end(t, e.status().isTerminal() ? e.status() : TurnStatus.ERROR, e.stats(), e.error());
      }
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, Protocol.REQUEST_CRASH_RECOVERY, Payloads.CrashRecoveryRequest.class,
        (e, ack) -> recover(c, me, e, ack));
    handle(c, Protocol.DRONE_STATUS, Payloads.DroneStatusEvent.class, (e, ack) -> {
      if (e.status() == DroneStatus.AVAILABLE || e.status() == DroneStatus.BUSY) {
        try {
          store.updateDroneStatus(me.id, e.status(), clock.instant());
        } catch (StoreException ex) {
          log.debug("could not store drone status: {}", ex.getMessage());
        }
        toUserPages(me.userId, new Payloads.DroneStatusEvent(me.id, e.status(), e.turnId()));
      }
    });
  }

  private void stream(Drone drone, String turnId, long seq, StreamChunk chunk, String event,
      Object payload) {
    LiveTurn t = turnId == null ? null : live.get(turnId);
    if (t == null || !t.droneId.equals(drone.id)) {
      log.debug("ignoring '{}' for turn {} that drone {} does not run", event, turnId, drone.id);
      return;
    }
    synchronized (t.lock) {
      if (t.ended || seq <= t.lastSeq) {
        return;
      }
      t.lastSeq = seq;
      t.lastEventAt = clock.instant();
      t.aggregator.accept(chunk);
      // Forwarded under the turn's lock, so a page joining now gets either the snapshot with
      // this event or the event itself, never both and never neither.
      toWatchers(t.turn.sessionId(), event, payload);
    }
  }

  private void droneDisconnected(Connection c, DronePrincipal p, String reason) {
    Drone drone = null;
    for (Drone d : drones.values()) {
      if (d.connection == c) {
        drone = d;
      }
    }
    if (drone == null || closed) {
      return;
    }
    LiveTurn running;
    synchronized (routing) {
      if (drone.connection != c) {
        return;
      }
      drone.connection = null;
      drone.status = DroneStatus.OFFLINE;
      running = drone.activeTurnId == null ? null : live.get(drone.activeTurnId);
    }
    try {
      store.updateDroneStatus(drone.id, DroneStatus.OFFLINE, clock.instant());
    } catch (StoreException e) {
      log.debug("could not store drone status: {}", e.getMessage());
    }
    log.info("drone {} disconnected: {}", drone.id, reason);
    toUserPages(drone.userId, new Payloads.DroneStatusEvent(drone.id, DroneStatus.OFFLINE, null));
    if (running != null) {
      synchronized (running.lock) {
        if (!running.ended && running.graceTimer == null) {
          running.graceTimer = schedule(() -> end(running, TurnStatus.INTERRUPTED, null,
              "the drone disconnected (" + reason + ") and did not come back within "
                  + droneGracePeriod.toSeconds() + " s"), droneGracePeriod);
        }
      }
    }
  }

  private void recover(Connection c, Drone drone, Payloads.CrashRecoveryRequest req, Ack ack) {
    LiveTurn t = req.turnId() == null ? null : live.get(req.turnId());
    Payloads.CrashRecoveryResponse answer = new Payloads.CrashRecoveryResponse(req.turnId(),
        Payloads.CrashRecoveryResponse.DISCARD, null);
    if (t != null && t.droneId.equals(drone.id)) {
      synchronized (t.lock) {
        if (!t.ended) {
          if (t.graceTimer != null) {
            t.graceTimer.cancel(false);
            t.graceTimer = null;
          }
          // What was streamed before the crash stays; the retry's stream goes on after it (in
          // the same open block, as a page watching live sees it).
          long firstSeq = t.lastSeq + 1;
          t.lastEventAt = clock.instant();
          drone.status = DroneStatus.BUSY;
          drone.activeTurnId = t.turn.id();
          answer = new Payloads.CrashRecoveryResponse(t.turn.id(),
              Payloads.CrashRecoveryResponse.RETRY,
              new Payloads.ProcessWorkOrder(t.workOrder, firstSeq, req.journaledMessages() > 0));
          log.info("drone {} crashed during turn {}; retrying from seq {}", drone.id,
              t.turn.id(), firstSeq);
        }
      }
    }
    c.emit(Protocol.CRASH_RECOVERY_RESPONSE, Protocol.args(answer));
    reply(ack, answer);
  }

  private void lockSession(String userId, Payloads.SessionLock req, Ack ack) {
    ChatSession session = ownedSession(userId, req.sessionId());
    Project project = ownedProject(userId, session.projectId());
    Drone drone;
    Connection connection;
    synchronized (routing) {
      drone = pickDrone(userId, session.workspaceId(), req.droneId());
      connection = drone.connection;
    }
    Payloads.SessionLock forward = new Payloads.SessionLock(session.id(), drone.id,
        session.name(), WorkOrder.ProjectRef.of(project));
    askDrone(connection, Protocol.REQUEST_SESSION_LOCK, forward, ack, () -> {
      store.setSessionWorkspace(session.id(), drone.workspaceId);
      return Map.of("ok", true, "workspaceId", drone.workspaceId, "droneId", drone.id);
    });
  }

  private void workspaceMode(String userId, Payloads.WorkspaceModeRequest req, Ack ack) {
    Drone drone = req.droneId() == null ? null : drones.get(req.droneId());
    Connection connection = drone == null ? null : drone.connection;
    if (drone == null || !drone.userId.equals(userId) || connection == null) {
      throw new RequestException("that drone is not connected");
    }
    askDrone(connection, Protocol.REQUEST_WORKSPACE_MODE,
        new Payloads.WorkspaceModeRequest(drone.id, req.mode()), ack, () -> {
          drone.mode = req.mode();
          return Payloads.OkReply.success();
        });
  }

  /**
   * Forwards a page's request to a drone and answers the page: {@code onOk}'s reply when the
   * drone agrees, otherwise {@code {"error"}} with the drone's reason. Never leaves the page
   * without an answer.
   */
  private void askDrone(Connection drone, String event, Object payload, Ack ack,
      java.util.function.Supplier<Object> onOk) {
    drone.emitWithAck(event, Protocol.args(payload), ackTimeout).whenComplete((r, e) -> {
      Object answer;
      try {
        if (e != null) {
          answer = new Payloads.ErrorReply("the drone did not answer: " + e.getMessage());
        } else {
          Payloads.OkReply ok = safeOk(r);
          answer = ok.ok() ? onOk.get() : new Payloads.ErrorReply(ok.error());
        }
      } catch (StoreException ex) {
        answer = new Payloads.ErrorReply("the server cannot reach its store: " + ex.getMessage());
      } catch (RuntimeException ex) {
        log.warn("handling the drone's answer to '{}' failed", event, ex);
        answer = new Payloads.ErrorReply("the server failed: " + ex.getMessage());
      }
      reply(ack, answer);
    });
  }

  private static Payloads.OkReply safeOk(List<JsonNode> reply) {
    try {
      return Protocol.payload(reply, Payloads.OkReply.class);
    } catch (IllegalArgumentException e) {
      return Payloads.OkReply.failure("the drone sent an invalid answer");
    }
  }

  /** Schedules on the server's timer; does nothing (returns {@code null}) once it is closed. */
  private ScheduledFuture<?> schedule(Runnable task, Duration delay) {
    try {
      return timer.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return null;
    }
  }

  /** Builds a {@link GadgetServer}. */
  public static final class Builder {
    private ChatStore store;
    private TransportServer transport;
    private Function<ChatSession, ProviderConfig> providers;
    private Clock clock = Clock.systemUTC();
    private Duration droneGracePeriod = Duration.ofSeconds(30);
    private Duration silenceTimeout = Duration.ofSeconds(90);
    private Duration cancelTimeout = Duration.ofSeconds(10);
    private Duration ackTimeout = Duration.ofSeconds(15);

    /** Where users, sessions and turns are kept. Required. */
    public Builder store(ChatStore store) {
      this.store = store;
      return this;
    }

    /** How pages and drones reach the server. Required. */
    public Builder transport(TransportServer transport) {
      this.transport = transport;
      return this;
    }

    /** The LLM every work order uses. */
    public Builder provider(ProviderConfig provider) {
      Objects.requireNonNull(provider, "provider");
      this.providers = s -> provider;
      return this;
    }

    /** Chooses the LLM per chat session. */
    public Builder provider(Function<ChatSession, ProviderConfig> providers) {
      this.providers = Objects.requireNonNull(providers, "providers");
      return this;
    }

    /** Stamps turns and blocks. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How long a disconnected drone has to come back before its turn is interrupted (30 s). */
    public Builder droneGracePeriod(Duration d) {
      this.droneGracePeriod = positive(d);
      return this;
    }

    /** How long a connected drone may say nothing during a turn (90 s). */
    public Builder silenceTimeout(Duration d) {
      this.silenceTimeout = positive(d);
      return this;
    }

    /** How long a cancelled turn waits for the drone to confirm (10 s). */
    public Builder cancelTimeout(Duration d) {
      this.cancelTimeout = positive(d);
      return this;
    }

    /** How long the server waits for a drone's acknowledgement (15 s). */
    public Builder ackTimeout(Duration d) {
      this.ackTimeout = positive(d);
      return this;
    }

    private static Duration positive(Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("duration must be positive");
      }
      return d;
    }

    /** The server, not started. */
    public GadgetServer build() {
      return new GadgetServer(this);
    }
  }
}
