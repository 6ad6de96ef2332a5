package dev.gadget.core.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.server.internal.ApprovalDesk;
import dev.gadget.core.server.internal.Authenticator;
import dev.gadget.core.server.internal.AgentFace;
import dev.gadget.core.server.internal.ClusterNode;
import dev.gadget.core.server.internal.DroneLink;
import dev.gadget.core.server.internal.TurnResumption;
import dev.gadget.core.server.internal.DroneRouter;
import dev.gadget.core.server.internal.LiveTurns;
import dev.gadget.core.server.internal.TurnSweeps;
import dev.gadget.core.server.internal.PageRequests;
import dev.gadget.core.server.internal.SafeServerListener;
import dev.gadget.core.server.internal.ServerSettings;
import dev.gadget.core.server.internal.ServerTimer;
import dev.gadget.core.server.internal.UsageRecorder;
import dev.gadget.core.server.internal.WatcherRooms;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.store.Tokens;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.TransportServer;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
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
 * Thread-safe. See {@code docs/PROTOCOL.md} for the events and {@code docs/ARCHITECTURE.md} for
 * the parts (in {@code dev.gadget.core.server.internal}) this class wires together.
 */
public final class GadgetServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GadgetServer.class);

  private final ServerSettings settings;
  private final TransportServer transport;
  private final ServerTimer timer = new ServerTimer();
  private final Authenticator authenticator;
  private final LiveTurns turns;
  private final PageRequests pages;
  private final DroneLink drones;
  private final TurnResumption resumption;
  private final AgentFace agents;
  /** This server as a node of a cluster, or null when it runs alone. */
  private final ClusterNode node;
  private volatile boolean started;
  private ScheduledFuture<?> silenceCheck;
  private ScheduledFuture<?> checkpoints;
  private ScheduledFuture<?> renewals;

  private GadgetServer(Builder b) {
    ChatStore store = Objects.requireNonNull(b.store, "store");
    this.transport = Objects.requireNonNull(b.transport, "transport");
    this.settings = new ServerSettings(store, b.clock,
        Objects.requireNonNull(b.providers, "provider"), b.droneGracePeriod, b.silenceTimeout,
        b.cancelTimeout, b.ackTimeout,
        new SafeServerListener(new UsageRecorder(store, b.listener)), b.secretKeys,
        b.crashRetryDelay, b.providerHosts);
    this.authenticator = new Authenticator(new Tokens(settings.store(), settings.clock()));
    WatcherRooms rooms = new WatcherRooms();
    DroneRouter router = new DroneRouter();
    this.turns = new LiveTurns(settings, timer, rooms, router);
    this.node = b.cluster == null ? null
        : ClusterNode.join(settings, b.cluster, router, turns, rooms, timer);
    ApprovalDesk approvals = new ApprovalDesk(settings, timer, rooms, router, turns,
        b.approvalTimeout, b.approvalPolicy);
    this.pages = new PageRequests(settings, rooms, turns, router, approvals, node);
    this.resumption = new TurnResumption(settings, turns, rooms, timer, approvals);
    this.drones = new DroneLink(settings, rooms, router, turns, approvals, resumption, node);
    this.agents = new AgentFace(settings, rooms, turns, router, approvals, node);
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Takes back every turn a previous run left {@link TurnStatus#PROCESSING} on a drone (each waits
   * for its drone to send it again, {@link TurnResumption}; one never sent to a drone ends
   * interrupted), then starts
   * accepting pages and drones.
   */
  public synchronized void start() {
    if (started) {
      throw new IllegalStateException("already started");
    }
    started = true;
    if (node == null) {
      resumption.adoptUnfinished();
    } else {
      // other nodes run the store's running turns: each is taken over here only when its
      // drone reconnects here (docs/CLUSTER.md)
      renewals = node.start(timer);
    }
    long period = Math.max(50, settings.silenceTimeout().toMillis() / 4);
    TurnSweeps sweeps = new TurnSweeps(settings, turns);
    silenceCheck = timer.every(sweeps::checkSilence, period);
    checkpoints = timer.every(sweeps::checkpoint, LiveTurns.CHECKPOINT_INTERVAL.toMillis());
    transport.start(new Acceptor());
  }

  /** Stops accepting, closes every connection. Running turns stay as they are in the store. */
  @Override
  public synchronized void close() {
    drones.close();
    if (renewals != null) {
      renewals.cancel(false);
    }
    if (node != null) {
      node.close();
    }
    if (checkpoints != null) {
      checkpoints.cancel(false);
    }
    if (silenceCheck != null) {
      silenceCheck.cancel(false);
    }
    transport.close();
    turns.close();
    timer.close();
  }

  /** The store this server writes to. */
  public ChatStore store() {
    return settings.store();
  }

  /**
   * Who connects (pages on {@code /}, seed-004 clients on {@code /agent}, drones on
   * {@code /drone}) and where each one goes.
   */
  private final class Acceptor implements ConnectionAcceptor {
    @Override
    public Object authenticate(String namespace, JsonNode auth) {
      return authenticator.authenticate(namespace, auth);
    }

    @Override
    public void onConnect(Connection connection, Object principal) {
      if (principal instanceof Authenticator.PagePrincipal p) {
        settings.listener().onConnectionOpened(ServerListener.ConnectionKind.PAGE);
        pages.connected(connection, p.userId());
      } else if (principal instanceof Authenticator.AgentPrincipal a) {
        // a seed-004 client counts as a page: it signs in and sees what a page does
        settings.listener().onConnectionOpened(ServerListener.ConnectionKind.PAGE);
        agents.connected(connection, a.userId());
      } else if (principal instanceof Authenticator.DronePrincipal d) {
        settings.listener().onConnectionOpened(ServerListener.ConnectionKind.DRONE);
        drones.connected(connection, d);
      }
    }

    @Override
    public void onDisconnect(Connection connection, Object principal, String reason) {
      if (principal instanceof Authenticator.PagePrincipal) {
        pages.disconnected(connection);
        settings.listener().onConnectionClosed(ServerListener.ConnectionKind.PAGE);
      } else if (principal instanceof Authenticator.AgentPrincipal) {
        agents.disconnected(connection);
        settings.listener().onConnectionClosed(ServerListener.ConnectionKind.PAGE);
      } else if (principal instanceof Authenticator.DronePrincipal) {
        drones.disconnected(connection, reason);
        settings.listener().onConnectionClosed(ServerListener.ConnectionKind.DRONE);
      }
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
    private Duration approvalTimeout = Duration.ofMinutes(10);
    private ApprovalPolicy approvalPolicy = ApprovalPolicy.NEVER;
    private ServerListener listener = new ServerListener() {};
    private SecretKeys secretKeys;
    private Duration crashRetryDelay = Duration.ZERO;
    private ProviderHosts providerHosts = ProviderHosts.publicOnly();
    private Cluster cluster;

    /**
     * Makes this server a node of {@code cluster}, beside other nodes on the same store (which
     * must be one all of them share, such as MongoDB): any node serves any page and any drone
     * (docs/CLUSTER.md). Default: none, the server runs alone. The server does not close it.
     */
    public Builder cluster(Cluster cluster) {
      this.cluster = Objects.requireNonNull(cluster, "cluster");
      return this;
    }

    /**
     * The keys that seal the API keys users give their providers before they are stored (see
     * {@link SecretKeys}). Without them users may still add providers, but none with a key.
     */
    public Builder secretKeys(SecretKeys keys) {
      this.secretKeys = Objects.requireNonNull(keys, "keys");
      return this;
    }

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

    /**
     * How long a drone that restarted after a crash waits before it retries the turn it was
     * running (seed 001's {@code crashRecoveryResponse.retryDelay}; default none: the restart
     * took its own time). Must be shorter than {@link #silenceTimeout}, which counts from the
     * end of the wait.
     */
    public Builder crashRetryDelay(Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException("crashRetryDelay must not be negative");
      }
      this.crashRetryDelay = d;
      return this;
    }

    /** How long the server waits for a drone's acknowledgement (15 s). */
    public Builder ackTimeout(Duration d) {
      this.ackTimeout = positive(d);
      return this;
    }

    /**
     * The approval policy of a chat session until a page sets its own (default
     * {@link ApprovalPolicy#NEVER}: tool calls run at once). See docs/PROTOCOL-APPROVALS.md, "Approvals".
     */
    public Builder approvalPolicy(ApprovalPolicy policy) {
      this.approvalPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * How long a tool call waits for a page's answer before the server denies it (default 10
     * minutes); the turn then goes on, the model told that nobody answered.
     */
    public Builder approvalTimeout(Duration d) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("the approval timeout must be positive");
      }
      this.approvalTimeout = d;
      return this;
    }

    /**
     * Which hosts users may name as the base URL of a provider they add (default
     * {@link ProviderHosts#publicOnly()}: the server fetches their model lists, so no user makes
     * it reach its loopback, private network or a metadata address). The server's own provider
     * is not checked.
     */
    public Builder providerHosts(ProviderHosts hosts) {
      this.providerHosts = Objects.requireNonNull(hosts, "hosts");
      return this;
    }

    /**
     * Observes connections and turns, for metrics (such as gadget-micrometer's) or a console
     * (default: none). See {@link ServerListener} for when and on which threads it is called.
     */
    public Builder listener(ServerListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
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
