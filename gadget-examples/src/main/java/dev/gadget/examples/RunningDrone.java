package dev.gadget.examples;

import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.drone.WorkspaceLock;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What {@code gadget drone} runs: it holds its workspace from the start (one drone per
 * workspace), asks the server where its Socket.IO transport listens, again and again with a
 * bounded backoff while the server cannot be reached, saying so on the console, then runs the
 * drone until it is stopped, and stops it cleanly (the drone ends its turn as cancelled and tells
 * the server).
 */
final class RunningDrone implements Running {
  static final Duration FIRST_RETRY = Duration.ofSeconds(1);
  static final Duration MAX_RETRY = Duration.ofSeconds(30);

  private final List<ServerAddress> servers;
  private final WorkspaceLock held;
  private final Function<List<URI>, GadgetDrone> startDrone;
  private final ConsoleDroneListener console;
  private final PrintStream err;
  private final CompletableFuture<Integer> exit;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final Thread connector;
  /** Guarded by {@code this}. */
  private GadgetDrone drone;
  /** Guarded by {@code this}. */
  private boolean closed;

  /**
   * @param held the workspace, locked until the drone takes it over
   * @param servers the server, or the nodes of a cluster
   * @param startDrone starts the drone on the servers' Socket.IO URIs (the one that answered
   *     first, then the others)
   * @param exit completed with 1 when the drone cannot go on (refused, not a Gadget server)
   */
  RunningDrone(List<ServerAddress> servers, WorkspaceLock held,
      Function<List<URI>, GadgetDrone> startDrone, ConsoleDroneListener console, PrintStream err,
      CompletableFuture<Integer> exit) {
    this.servers = List.copyOf(servers);
    this.held = Objects.requireNonNull(held, "held");
    this.startDrone = Objects.requireNonNull(startDrone, "startDrone");
    this.console = Objects.requireNonNull(console, "console");
    this.err = Objects.requireNonNull(err, "err");
    this.exit = Objects.requireNonNull(exit, "exit");
    this.connector = new Thread(this::connect, "gadget-drone-connect");
    connector.setDaemon(true);
  }

  /** Starts looking for the server. */
  RunningDrone start() {
    connector.start();
    return this;
  }

  private void connect() {
    List<URI> socket;
    try {
      socket = findServer();
    } catch (InterruptedException e) {
      return;
    } catch (CommandException e) {
      fail(e);
      return;
    }
    if (socket == null) {
      return;
    }
    synchronized (this) {
      if (closed) {
        return;
      }
      console.note("connecting to the server's Socket.IO transport at " + socket.get(0)
          + (socket.size() > 1 ? " (then, after a drop, " + socket.subList(1, socket.size())
          + ")" : ""));
      // The drone takes the workspace over; it locks it again itself.
      held.close();
      try {
        drone = startDrone.apply(socket);
      } catch (CommandException e) {
        fail(e);
      } catch (RuntimeException e) {
        fail(new CommandException("cannot start the drone: " + e, e));
      }
    }
  }

  /**
   * The Socket.IO URIs: the first server that answers says where its transport listens; the
   * others (a cluster's nodes) are reached on their page URLs, where Socket.IO is by default.
   * Asks the servers in turn until one answers; null once stopped.
   */
  private List<URI> findServer() throws InterruptedException {
    long delay = FIRST_RETRY.toMillis();
    for (int attempt = 0; ; attempt++) {
      ServerAddress server = servers.get(attempt % servers.size());
      try {
        List<URI> sockets = new ArrayList<>(List.of(server.socketUri()));
        for (ServerAddress other : servers) {
          if (other != server) {
            sockets.add(other.page());
          }
        }
        return sockets;
      } catch (ServerAddress.Unreachable e) {
        console.note("cannot reach the server at " + server + " (" + e.getMessage()
            + "); trying again in " + TimeUnit.MILLISECONDS.toSeconds(delay) + " s. Ctrl-C stops.");
        if (stopping.await(delay, TimeUnit.MILLISECONDS)) {
          return null;
        }
        if (attempt % servers.size() == servers.size() - 1) {
          delay = Math.min(delay * 2, MAX_RETRY.toMillis());
        }
      }
    }
  }

  private void fail(CommandException e) {
    err.println("gadget drone: " + e.getMessage());
    exit.complete(1);
  }

  @Override
  public CompletableFuture<Integer> exitCode() {
    return exit;
  }

  /** Stops looking for the server, or stops the drone cleanly (bounded); frees the workspace. */
  @Override
  public void close() {
    GadgetDrone d;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      d = drone;
      stopping.countDown();
      if (d == null) {
        // still asking the server: stop the request in flight
        connector.interrupt();
      }
    }
    if (d != null) {
      d.close();
    }
    held.close();
    console.note("stopped");
  }
}
