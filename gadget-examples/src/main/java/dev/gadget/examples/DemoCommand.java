package dev.gadget.examples;

import dev.gadget.core.Ids;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.server.ProviderHosts;
import dev.gadget.micrometer.GadgetMetrics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * {@code gadget demo}: a server and a drone in one JVM, on a sample git project in a temporary
 * directory, with the user, project and chat session made; prints the page's URL with the token
 * in its fragment.
 */
final class DemoCommand implements Command {
  @Override
  public String name() {
    return "demo";
  }

  @Override
  public String summary() {
    return "start a server and a drone on a sample project, and print the page's URL";
  }

  @Override
  public String description() {
    return """
        Usage: java -jar gadget.jar demo [options]

        Starts a server and a drone in this process, on a sample git project it creates in a
        temporary directory, and prints the page's URL (it signs you in). The LLM: --llm when
        given; else an OpenAI-compatible endpoint when --base-url or OPENAI_API_KEY is given;
        else Anthropic when ANTHROPIC_API_KEY is given; else Ollama when one answers on
        127.0.0.1:11434 (its first chat model, or --model);
        else scripted replies, which the console and the page say plainly. Everything is
        removed at exit unless --keep. With --metrics, GET /metrics on the page's port answers
        with the server's and the drone's meters (model calls, tokens, tool calls, turns) in
        Prometheus's text format.
        """;
  }

  @Override
  public List<OptionSpec> options() {
    List<OptionSpec> all = new ArrayList<>(List.of(
        OptionSpec.value("host", "ADDRESS", "the address to listen on (default 127.0.0.1; "
            + "0.0.0.0 to be reached from other machines)"),
        OptionSpec.value("port", "PORT", "the port of the page and Socket.IO (default "
            + ServerCommand.DEFAULT_PORT + ", or any free port when that is taken)"),
        OptionSpec.flag("keep", "keep the temporary directory at exit"),
        OptionSpec.flag("metrics", "serve metrics in Prometheus's format on GET /metrics")));
    all.addAll(Providers.OPTIONS);
    return all;
  }

  @Override
  public Running run(Args args, Console console) throws Exception {
    if (!args.positional().isEmpty()) {
      throw new UsageException("unexpected argument '" + args.positional().get(0) + "'");
    }
    int port = args.port("port", ServerCommand.DEFAULT_PORT);
    PrintStream out = console.out();
    Providers.Choice llm = Providers.forDemo(args, console, Providers.DEFAULT_OLLAMA_URL);
    Path root = Files.createTempDirectory("gadget-demo-");
    List<AutoCloseable> open = new ArrayList<>();
    boolean keep = args.flag("keep");
    Running running = new Running() {
      private final CompletableFuture<Integer> exit = new CompletableFuture<>();
      private boolean closed;

      @Override
      public CompletableFuture<Integer> exitCode() {
        return exit;
      }

      @Override
      public synchronized void close() {
        if (closed) {
          return;
        }
        closed = true;
        for (int i = open.size() - 1; i >= 0; i--) {
          try {
            open.get(i).close();
          } catch (Exception e) {
            // best effort at exit
          }
        }
        if (!keep) {
          deleteTree(root);
        }
      }
    };
    try {
      Path sample = SampleProject.create(root.resolve("greeter"));
      Stores.Opened store = Stores.embedded(root.resolve("data"));
      open.add(store);
      ServerApp app = startApp(store, llm, args.get("host", "127.0.0.1"), port,
          args.flag("metrics"), out);
      open.add(app);
      Accounts.Issued me = Accounts.create(store.store(), "demo");
      Instant now = Instant.now();
      Project project = new Project(Ids.next(), me.user().id(), "Greeter", "greeter",
          sample.toString(), now);
      store.store().createProject(project);
      store.store().createSession(new ChatSession(Ids.next(), me.user().id(), project.id(),
          "Demo chat", null, now));
      LlmClients clients = new LlmClients();
      GadgetMetrics metrics = app.metrics();
      GadgetDrone drone = DroneCommand.start(app.socketUri(), me.droneToken(),
          root.resolve("workspace"), "demo", clients,
          new ConsoleDroneListener(out, app.socketUri().toString(), new CompletableFuture<>()),
          metrics == null ? b -> b.sandbox(sandbox(root)) : b -> b.sandbox(sandbox(root))
              .llmClients(metrics.llmClients(clients)).tools(metrics.tools(CodingTools.all())));
      open.add(drone);
      String url = app.pageUrl() + "#token=" + me.pageToken();
      out.println();
      out.println("Gadget demo " + Main.VERSION + " is running.");
      out.println();
      out.println("  Open:    " + url);
      out.println("  LLM:     " + llm.description());
      if (metrics != null) {
        out.println("  Metrics: " + app.pageUrl().resolve("metrics") + " (Prometheus)");
      }
      out.println("  Project: " + sample + " (a git repository; the drone works on its clone "
          + "in " + root.resolve("workspace").resolve("greeter") + ")");
      out.println("  Files:   " + root + (keep ? " (kept at exit)" : " (removed at exit)"));
      out.println();
      out.println("Type a prompt in the page, such as: What is this project about?");
      out.println("Press Ctrl-C to stop.");
      out.println();
      return running;
    } catch (RuntimeException | IOException | InterruptedException e) {
      running.close();
      throw e;
    }
  }

  private static ServerApp startApp(Stores.Opened store, Providers.Choice llm, String host,
      int port, boolean metrics, PrintStream out) {
    ServerApp.Builder b = ServerApp.builder().store(store.store()).provider(llm.config())
        .host(host).metrics(metrics)
        // the demo's one user runs it on their own machine: a local Ollama is theirs to add
        .serverTweaks(s -> s.providerHosts(ProviderHosts.allowPrivate()))
        .secretKeys(Stores.secretKeys(store.directory(), System.getenv()));
    try {
      return b.port(port).start();
    } catch (CommandException e) {
      if (port == 0) {
        throw e;
      }
      out.println("Port " + port + " is taken; using a free port instead.");
      return b.port(0).start();
    }
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          p.toFile().setWritable(true);
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // best effort
        }
      });
    } catch (IOException e) {
      // best effort
    }
  }

  /**
   * The demo drone's sandbox: the default one, with the server's data directory (its keys, its
   * journal) hidden from commands as well, wherever the temporary directory is.
   */
  static CommandSandbox sandbox(Path root) {
    return CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE).hide(root.resolve("data"))
        .build();
  }
}
