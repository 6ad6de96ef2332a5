package dev.gadget.examples;

import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.server.ProviderHosts;
import dev.gadget.core.server.SecretKeys;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** {@code gadget server}: the web page, the REST API and the Socket.IO transport. */
final class ServerCommand implements Command {
  static final int DEFAULT_PORT = 7700;

  @Override
  public String name() {
    return "server";
  }

  @Override
  public String summary() {
    return "run a server: the web page, its REST API and the Socket.IO transport";
  }

  @Override
  public String description() {
    return """
        Usage: java -jar gadget.jar server [options]

        Serves the web chat page, a small REST API and the Socket.IO transport that pages and
        drones connect to, all on one port (forwarding that one port is enough to reach it from
        another machine). Keeps users, hashed tokens, projects, chat sessions and turns in an
        embedded store under --data-dir, or in MongoDB with --mongo. At the first start it
        creates the user 'admin' and prints its tokens; 'java -jar gadget.jar user add NAME'
        adds more users. Binds 127.0.0.1 unless --host says otherwise. API keys are read from the environment only: GADGET_LLM_API_KEY, or
        OPENAI_API_KEY for --llm openai and ANTHROPIC_API_KEY for --llm anthropic. With
        --metrics, GET /metrics on the HTTP port answers with the server's meters (live turns,
        connections, turn durations) in Prometheus's text format, without sign-in. With
        --cluster redis://HOST:PORT and --mongo, it is one node of several on that store: any
        node serves any page and any drone (docs/CLUSTER.md).
        """;
  }

  @Override
  public List<OptionSpec> options() {
    List<OptionSpec> all = new ArrayList<>(List.of(
        OptionSpec.value("host", "ADDRESS", "the address to listen on (default 127.0.0.1)"),
        OptionSpec.value("port", "PORT", "the port of the page, the API and Socket.IO (default "
            + DEFAULT_PORT + ")"),
        OptionSpec.value("socket-port", "PORT", "also a port of Socket.IO's own (default: "
            + "none; Socket.IO is on --port)"),
        OptionSpec.flag("metrics", "serve metrics in Prometheus's format on GET /metrics"),
        OptionSpec.value("drone-grace-period", "SECONDS", "how long a drone that disconnected "
            + "mid-turn may take to come back before the turn ends interrupted (default 30)"),
        OptionSpec.value("silence-timeout", "SECONDS", "how long a drone running a turn may say "
            + "nothing before the turn ends interrupted (default 90)"),
        OptionSpec.value("cancel-timeout", "SECONDS", "how long a drone may take to confirm a "
            + "cancel before the server ends the turn cancelled itself (default 10)"),
        OptionSpec.value("approval-policy", "POLICY", "which tool calls of a chat wait for "
            + "the user's approval until the chat sets its own: never (default), commands, "
            + "commands-and-writes or everything"),
        OptionSpec.value("approval-timeout", "SECONDS", "how long a tool call waits for an "
            + "approval before it is denied (default 600)"),
        OptionSpec.flag("allow-private-providers", "let users add providers on loopback and "
            + "private addresses (a local Ollama); by default only public hosts, since the "
            + "server fetches their model lists"),
        OptionSpec.value("provider-hosts", "HOSTS", "let users add providers on these hosts "
            + "only (,-separated, host or host:port), whatever their addresses")));
    all.addAll(Stores.OPTIONS);
    all.addAll(ClusterOption.OPTIONS);
    all.addAll(Providers.OPTIONS);
    return all;
  }

  @Override
  public Running run(Args args, Console console) {
    if (!args.positional().isEmpty()) {
      throw new UsageException("unexpected argument '" + args.positional().get(0) + "'");
    }
    int port = args.port("port", DEFAULT_PORT);
    int socketPort = args.get("socket-port").isPresent() ? args.port("socket-port", 0) : -1;
    Duration grace = args.seconds("drone-grace-period", Duration.ofSeconds(30));
    Duration silence = args.seconds("silence-timeout", Duration.ofSeconds(90));
    Duration cancel = args.seconds("cancel-timeout", Duration.ofSeconds(10));
    Duration approvalTimeout = args.seconds("approval-timeout", Duration.ofMinutes(10));
    ApprovalPolicy approvalPolicy;
    try {
      approvalPolicy = ApprovalPolicy.fromWireName(args.get("approval-policy", "never"));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    ProviderHosts providerHosts = providerHosts(args);
    Providers.Choice llm = Providers.forServer(args, console);
    ClusterOption.check(args); // before anything is opened
    Stores.Opened store = Stores.open(args);
    ServerApp app;
    Optional<ClusterOption.Opened> cluster = Optional.empty();
    try {
      SecretKeys keys = Stores.secretKeys(store, args, console);
      cluster = ClusterOption.open(args, keys);
      Optional<ClusterOption.Opened> node = cluster;
      app = ServerApp.builder().store(store.store()).provider(llm.config())
          .host(args.get("host", "127.0.0.1")).port(port).socketPort(socketPort)
          .adminDirectory(store.directory()).metrics(args.flag("metrics"))
          .metricsNode(node.map(c -> c.cluster().nodeId()).orElse(null))
          .serverTweaks(b -> {
            b.droneGracePeriod(grace).silenceTimeout(silence)
                .cancelTimeout(cancel).approvalPolicy(approvalPolicy)
                .approvalTimeout(approvalTimeout).providerHosts(providerHosts);
            node.ifPresent(c -> b.cluster(c.cluster()));
            return b;
          })
          .secretKeys(keys).start();
    } catch (RuntimeException e) {
      cluster.ifPresent(c -> c.cluster().close());
      store.close();
      throw e;
    }
    Optional<ClusterOption.Opened> joined = cluster;
    if (app.metrics() != null) {
      joined.ifPresent(c -> io.micrometer.core.instrument.Gauge.builder(
              "gadget.cluster.reachable", c.cluster(), n -> n.reachable() ? 1 : 0)
          .description("1 while this node reaches the cluster's Redis, else 0")
          .register(app.metrics().registry()));
    }
    PrintStream out = console.out();
    out.println("Gadget server " + Main.VERSION);
    out.println("  Page:      " + app.pageUrl() + " (Socket.IO and drones too: --server "
        + app.pageUrl() + ")");
    out.println("  Store:     " + store.description());
    joined.ifPresent(c -> out.println("  Cluster:   " + c.description()));
    out.println("  LLM:       " + llm.description());
    if (app.metrics() != null) {
      out.println("  Metrics:   " + app.pageUrl().resolve("metrics") + " (Prometheus)");
    }
    out.println("  Drones:    " + seconds(grace) + " grace period, " + seconds(silence)
        + " silence timeout, " + seconds(cancel) + " cancel timeout");
    try {
      Accounts.bootstrapAdmin(store.store()).ifPresentOrElse(admin -> {
        out.println();
        out.println("First start: created the user 'admin'. Its tokens are shown only now; the "
            + "store keeps their hashes.");
        out.println("  Sign in:     " + app.pageUrl() + "#token=" + admin.pageToken());
        out.println("  Page token:  " + admin.pageToken());
        out.println("  Drone token: " + admin.droneToken());
        out.println("  Run a drone: GADGET_DRONE_TOKEN=" + admin.droneToken()
            + " " + Main.command() + " drone --server " + app.pageUrl());
      }, () -> out.println("Sign in with your page token ('java -jar gadget.jar user token NAME' "
          + "issues new tokens)."));
    } catch (RuntimeException e) {
      app.close();
      store.close();
      throw new CommandException("cannot set up the admin user: " + e.getMessage(), e);
    }
    out.println("Press Ctrl-C to stop.");
    CompletableFuture<Integer> never = new CompletableFuture<>();
    return new Running() {
      private boolean closed;

      @Override
      public CompletableFuture<Integer> exitCode() {
        return never;
      }

      @Override
      public synchronized void close() {
        if (closed) {
          return;
        }
        closed = true;
        try {
          app.close();
        } finally {
          joined.ifPresent(c -> c.cluster().close());
          store.close();
        }
      }
    };
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
  }

  /** The hosts users may name as providers: --provider-hosts, --allow-private-providers. */
  private static ProviderHosts providerHosts(Args args) {
    if (args.get("provider-hosts").isPresent()) {
      if (args.flag("allow-private-providers")) {
        throw new UsageException("--provider-hosts and --allow-private-providers exclude each "
            + "other: the list alone says which hosts users may name");
      }
      try {
        return ProviderHosts.onlyThese(args.get("provider-hosts").get().split(",", -1));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--provider-hosts: " + e.getMessage());
      }
    }
    return args.flag("allow-private-providers") ? ProviderHosts.allowPrivate()
        : ProviderHosts.publicOnly();
  }
}
