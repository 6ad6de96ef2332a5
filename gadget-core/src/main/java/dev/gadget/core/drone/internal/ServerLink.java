package dev.gadget.core.drone.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.drone.DroneListener;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.protocol.WorkspacePayloads;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.core.transport.TransportException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A drone's link to the server: connects and registers (the auth payload says who the drone is
 * and what it runs), hears the connection come, go and come back (the transport reconnects by
 * itself), registers the {@link ServerEvents} handlers, and sends the drone's status, its stream
 * events and the heartbeats of a running turn.
 */
public final class ServerLink {
  private static final Logger log = LoggerFactory.getLogger(ServerLink.class);

  private final TransportClient transport;
  private final String token;
  private final String hostname;
  private final DroneWorkspace workspace;
  private final DroneState state;
  private final DroneListener listener;
  private final ScheduledExecutorService timer;
  private final Duration heartbeatInterval;
  private final Duration ackTimeout;

  private volatile Connection connection;
  private final TurnOutbox outbox = new TurnOutbox();
  /** The tools the drone reports on each connection. */
  private volatile Payloads.DroneTools tools = new Payloads.DroneTools(List.of(), 0);
  /** What to do on each connection; set once the handlers are registered. */
  private volatile Consumer<Connection> whenReady;

  /**
   * A link that says it is {@code hostname} with {@code token}, sends a running turn's heartbeat
   * every {@code heartbeatInterval} on {@code timer}, and waits {@code ackTimeout} for answers.
   */
  public ServerLink(TransportClient transport, String token, String hostname,
      DroneWorkspace workspace, DroneState state, DroneListener listener,
      ScheduledExecutorService timer, Duration heartbeatInterval, Duration ackTimeout) {
    this.transport = Objects.requireNonNull(transport, "transport");
    this.token = Objects.requireNonNull(token, "token");
    this.hostname = hostname;
    this.workspace = Objects.requireNonNull(workspace, "workspace");
    this.state = Objects.requireNonNull(state, "state");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.timer = Objects.requireNonNull(timer, "timer");
    this.heartbeatInterval = Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
    this.ackTimeout = Objects.requireNonNull(ackTimeout, "ackTimeout");
  }

  /**
   * Starts connecting and registers {@code events}' handlers. From then on, {@code whenReady}
   * runs on every connection, so that an answer to what it asks cannot arrive unheard.
   */
  public void connect(ServerEvents events, Consumer<Connection> whenReady) {
    Connection c = transport.connect(Protocol.DRONE_NAMESPACE, this::auth, new Lifecycle());
    connection = c;
    events.register(c);
    this.whenReady = whenReady;
    if (c.isConnected()) {
      whenReady.accept(c);
    }
  }

  private JsonNode auth() {
    ObjectNode auth = GadgetJson.mapper().createObjectNode()
        .put("token", token)
        .put("workspaceId", workspace.id())
        .put("hostname", hostname)
        .put("workspaceDir", workspace.dir().toString());
    synchronized (state) {
      Job job = state.job;
      if (job != null && !job.pendingRecovery) {
        // finished too, while its end is not acknowledged: a server that restarted meanwhile
        // takes the turn back and asks for its stream before that end
        auth.put("activeTurnId", job.turnId);
      }
      if (job != null && job.pendingRecovery) {
        auth.put("recoveringTurnId", job.turnId);
      }
      auth.put("mode", state.mode.name().toLowerCase(java.util.Locale.ROOT));
    }
    return auth;
  }

  /**
   * The tools to report on each connection ({@code droneTools}), with the number of synthesized
   * tools' registry entries dropped at start because their files were gone.
   */
  public void tools(List<dev.gadget.core.agent.Tool> offered, int orphansCleaned) {
    List<Payloads.ToolInfo> infos = new java.util.ArrayList<>();
    for (dev.gadget.core.agent.Tool t : offered) {
      infos.add(new Payloads.ToolInfo(t.name(), t.description(), t.parameters()));
    }
    tools = new Payloads.DroneTools(infos, orphansCleaned);
  }

  private final class Lifecycle implements TransportClient.ClientListener {
    @Override
    public void onConnect(Connection c) {
      c.emit(Protocol.DRONE_TOOLS, Protocol.args(tools));
      listener.onConnected();
      askRegistration(c);
      Consumer<Connection> ready = whenReady;
      if (ready != null) {
        ready.accept(c);
      }
      emitStatus();
      emitMode();
    }

    @Override
    public void onConnectError(Connection c, TransportException error) {
      log.error("the server refused this drone: {}", error.getMessage());
      listener.onRefused(error.getMessage());
    }

    @Override
    public void onDisconnect(Connection c, String reason, boolean willReconnect) {
      if (state.closed) {
        log.info("disconnected from the server");
      } else {
        log.warn("disconnected from the server ({}){}", reason,
            willReconnect ? "; reconnecting" : "");
      }
      listener.onDisconnected(reason);
    }
  }

  /** Asks the server for this drone's registration and writes it to {@code workspace.json}. */
  private void askRegistration(Connection c) {
    c.emitWithAck(Protocol.DRONE_REGISTRATION, Protocol.args(Map.of()), ackTimeout)
        .whenComplete((reply, error) -> {
          if (error != null) {
            log.debug("no registration from the server: {}", error.getMessage());
            return;
          }
          try {
            workspace.registered(Protocol.payload(reply, WorkspacePayloads.RegistrationReply.class),
                state.status());
          } catch (RuntimeException e) {
            log.warn("cannot record the registration: {}", e.getMessage());
          }
        });
  }

  /** Tells the server and the listener whether the drone is busy, and with which turn. */
  void emitStatus() {
    String turnId;
    DroneStatus s;
    synchronized (state) {
      Job job = state.job;
      boolean free = job == null || job.finished;
      turnId = free ? null : job.turnId;
      s = free ? DroneStatus.AVAILABLE : DroneStatus.BUSY;
    }
    Connection c = connection;
    if (c != null && !state.closed) {
      c.emit(Protocol.DRONE_STATUS, Protocol.args(new Payloads.DroneStatusEvent(null, s, turnId)));
    }
    try {
      workspace.statusChanged(s);
    } catch (RuntimeException e) {
      log.warn("cannot record the drone's status: {}", e.getMessage());
    }
    listener.onStatus(s, turnId);
  }

  /** Tells the server the workspace's mode (agent, user, idle); it tells the user's pages. */
  void emitMode() {
    WorkspaceMode mode;
    synchronized (state) {
      mode = state.mode;
    }
    Connection c = connection;
    if (c != null && !state.closed) {
      c.emit(Protocol.WORKSPACE_MODE, Protocol.args(new WorkspacePayloads.WorkspaceModeEvent(null, mode)));
    }
  }

  /**
   * Sends event {@code seq} of {@code turnId}'s stream (the transport buffers it while
   * reconnecting), and keeps it to send again if the server asks ({@link #replay}).
   */
  void emitTurn(String turnId, long seq, String event, Object payload) {
    outbox.send(connection, turnId, seq, event, payload);
  }

  /** The server asks for the running turn's events again from a point. */
  void replay(Connection c, ResumePayloads.ResumeStream asked) {
    outbox.replay(c, asked);
  }

  /** Sends an event of a turn that is not part of its stream (no seq: its stats). */
  void emit(String event, Object payload) {
    Connection c = connection;
    if (c != null) {
      c.emit(event, Protocol.args(payload));
    }
  }

  /** Sends {@code payload} and waits for the server's answer; empty once closed. */
  Optional<CompletableFuture<List<JsonNode>>> emitWithAck(String event, Object payload) {
    Connection c = connection;
    if (c == null || state.closed) {
      return Optional.empty();
    }
    return Optional.of(c.emitWithAck(event, Protocol.args(payload), ackTimeout));
  }

  /** The drone's timer, for what a turn's stream schedules. */
  ScheduledExecutorService timer() {
    return timer;
  }

  /** Runs {@code task} every {@code every} on the drone's timer, until cancelled. */
  ScheduledFuture<?> repeat(Runnable task, Duration every) {
    long ms = every.toMillis();
    return timer.scheduleAtFixedRate(task, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** The interval of heartbeats (and of repeated approval requests). */
  Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  /** Sends {@code job}'s heartbeat every interval while connected, until cancelled. */
  ScheduledFuture<?> startHeartbeats(Job job) {
    long every = heartbeatInterval.toMillis();
    return timer.scheduleAtFixedRate(() -> heartbeat(job), every, every, TimeUnit.MILLISECONDS);
  }

  private void heartbeat(Job job) {
    long seq;
    synchronized (state) {
      seq = job.nextSeq - 1;
    }
    Connection c = connection;
    if (c != null && c.isConnected()) {
      c.emit(Protocol.HEARTBEAT, Protocol.args(new Payloads.Heartbeat(job.turnId, seq)));
    }
  }
}
