package dev.gadget.examples;

import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.catalog.HttpToolEmbedder;
import dev.gadget.core.agent.catalog.SemanticToolIndex;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.drone.GitChanges;
import dev.gadget.core.drone.TurnTools;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.drone.WorkspaceLock;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.mcp.McpToolset;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/** {@code gadget drone}: runs work orders in a workspace directory for a server. */
final class DroneCommand implements Command {
  static final String DEFAULT_WORKSPACE = "gadget-workspace";

  @Override
  public String name() {
    return "drone";
  }

  @Override
  public String summary() {
    return "run a drone: it owns a workspace directory and runs the agent for a server";
  }

  @Override
  public String description() {
    return """
        Usage: GADGET_DRONE_TOKEN=gdt_... java -jar gadget.jar drone [options]

        Connects to a Gadget server with a drone token, clones each work order's project into
        its workspace directory and runs the agent loop there, streaming everything back. It
        prints its status here; while the server cannot be reached it says so and tries again
        (every 1 s, then less often, up to every 30 s), and it reconnects by itself. One drone
        per workspace: a second drone on the same --workspace refuses to start and names the
        process that has it. Ctrl-C (or SIGTERM) stops it cleanly: a running turn ends as
        cancelled and the server is told at once. The LLM is the one the server's work orders
        name (ollama, openai, openai-responses, llamacpp, anthropic or scripted; OpenAI's own
        reasoning models, o-series and gpt-5*, go through the Responses API); the API key
        comes with the work order and stays in memory, or, when the server sends none, from
        this drone's own GADGET_LLM_API_KEY (or OPENAI_API_KEY for openai, ANTHROPIC_API_KEY
        for anthropic).
        Prefer GADGET_DRONE_TOKEN to --token: command lines are visible to other users of the
        machine. --mcp FILE gives the agent the tools of the MCP servers FILE describes (the
        .mcp.json shape of docs/MCP.md): they start with the drone, before it connects, and
        stop with it. --project-mcp also starts the servers of each project's own .mcp.json
        for each of its turns, and stops them when the turn ends. The agent's commands run in a
        bubblewrap sandbox (--sandbox workspace-write: only the project is writable, the home
        directory and the rest of the workspace are hidden, no network); where bubblewrap
        (Debian's bubblewrap package) is missing the drone says so and refuses every command
        unless --sandbox full-access is chosen (docs/AGENT.md, "Sandbox"). Commands can read
        the rest of the machine: hide more with --sandbox-hide (a server's --data-dir when it
        runs here). In every mode a command's environment holds only what shells and
        toolchains need (and --sandbox-env), never this drone's token or keys. The project's
        .git is read-only to the agent, and the drone's own git runs no hook, filter or helper
        that a repository names. With many tools (MCP servers' add up fast), the agent is
        offered the coding tools and search_tools instead of every definition, and loads the
        tools it finds for the rest of the turn, without changing the tools a request offers
        (Anthropic's API by reference; OpenAI-compatible servers and Ollama get the definitions
        in the search's result, and the agent calls them through call_tool), so that the
        provider's prompt cache holds: --tool-search says when (auto, the default:
        when the definitions would take more than 10% of the turn's context budget; always;
        never; or a share such as 25%). An OpenAI-compatible provider never gets more than 128
        tools in a request, whatever it says. With --embed-model, search_tools also ranks by
        meaning with that embedding model (each tool's definition is embedded once and cached
        while the drone runs); without one, or when it fails, by words only. To tune: a model
        with a small context, or one that picks badly among many tools, --tool-search always; a
        model that does not search, --tool-search never with few MCP servers; searches that find
        the wrong tools, --embed-model or --tool-examples (each turn's model writes, once per
        tool definition, six requests a user might make of it, kept in the workspace's
        .gadget/tool-examples, and search_tools finds tools by those words too: one model
        request per 8 tools, once). Each turn's footer on the page, and this drone's line
        when the turn ends, say how many tools were loaded and how many deferred (docs/TOOL-SEARCH.md,
        "Many tools").
        Agent Skills (folders with a SKILL.md) in a project's .agents/skills or .claude/skills
        and in --user-skills are listed to the agent, which loads one with activate_skill and
        runs its scripts in the sandbox (docs/SKILLS-AND-TOOLS.md, "Skills"). --create-tools lets the agent
        write itself tools, registered in the project's .agents/tools only when their tests pass
        in the sandbox (docs/SKILLS-AND-TOOLS.md, "Synthesized tools").
        """;
  }

  @Override
  public List<OptionSpec> options() {
    List<OptionSpec> all = new ArrayList<>(List.of(
        OptionSpec.value("server", "URL", "the server's page URL, or host:port meaning "
            + "http://host:port/ (default " + ServerAddress.EXAMPLE + "); several, "
            + "comma-separated, for the nodes of a cluster: after a drop the next is tried"),
        OptionSpec.value("token", "TOKEN", "the drone token (default: $GADGET_DRONE_TOKEN)"),
        OptionSpec.value("workspace", "DIR", "the workspace directory, one drone each (default "
            + DEFAULT_WORKSPACE + ")"),
        OptionSpec.value("hostname", "NAME", "the host name shown to the server (default: "
            + "this machine's)"),
        OptionSpec.value("mcp", "FILE", "MCP servers whose tools the agent gets, in .mcp.json "
            + "form (docs/MCP.md)")));
    all.addAll(SandboxOptions.OPTIONS);
    all.addAll(List.of(
        OptionSpec.value("keep-checkpoints", "TURNS", "how many turns' checkpoints each "
            + "project keeps (default " + GitChanges.DEFAULT_KEPT_CHECKPOINTS + "): past them, "
            + "the refs/gadget/checkpoints/ of turns no undo or commit can use any more are "
            + "removed, so that git gc can free them; turns still to undo or commit are kept"),
        OptionSpec.value("tool-search", "WHEN", "when tools are deferred and found by "
            + "search_tools: auto (default: their definitions over 10% of the context budget), "
            + "always, never, or a share of the budget such as 25%; a chat's own setting (on "
            + "the page) wins for its turns"),
        OptionSpec.value("context-window", "TOKENS", Providers.CONTEXT_WINDOW_HELP
            + "; a window the server's work order names wins"),
        OptionSpec.value("embed-model", "NAME", "also rank search_tools' results by meaning, "
            + "with this embedding model (such as nomic-embed-text); without it, search is by "
            + "words only"),
        OptionSpec.value("embed-url", "URL", "where the embedding model is served (default "
            + "Ollama's, " + HttpToolEmbedder.OLLAMA_DEFAULT + "; for --embed-api openai: "
            + "https://api.openai.com)"),
        OptionSpec.value("embed-api", "API", "how to ask it: ollama (/api/embed, the default) "
            + "or openai (/v1/embeddings, also llama.cpp's server and vLLM; its key from "
            + "GADGET_EMBED_API_KEY, else OPENAI_API_KEY)"),
        OptionSpec.flag("tool-examples", "let each turn's model write examples of the tools "
            + "search_tools finds by, once per definition (kept in the workspace's "
            + ".gadget/tool-examples)"),
        OptionSpec.value("user-skills", "DIRS", "folders (:-separated) of Agent Skills "
            + "every turn offers besides the project's .agents/skills and .claude/skills "
            + "(default ~/.agents/skills; none for none); commands may read them"),
        OptionSpec.flag("create-tools", "let the agent write itself tools (create_tool): "
            + "tested in the sandbox, kept in the project's .agents/tools/ (not under "
            + "--sandbox read-only); and keep what worked as a skill (save_pattern)"),
        OptionSpec.value("user-tools", "DIR", "the user's own library of tools the agent "
            + "wrote (create_tool with scope user), offered in every project's turns "
            + "(default ~/.agents/tools; none for none); commands may read it"),
        OptionSpec.flag("project-mcp", "also start the MCP servers of each project's own "
            + ".mcp.json, for its turns only (it runs what the repository names: trusted "
            + "projects only)")));
    return all;
  }

  @Override
  public Running run(Args args, Console console) {
    if (!args.positional().isEmpty()) {
      throw new UsageException("unexpected argument '" + args.positional().get(0) + "'");
    }
    List<ServerAddress> servers = ServerAddress.parseAll(args.get("server",
        ServerAddress.EXAMPLE));
    ServerAddress server = servers.get(0);
    String token = args.get("token").orElse(console.env("GADGET_DRONE_TOKEN"));
    if (token == null) {
      throw new UsageException("a drone token is needed: set GADGET_DRONE_TOKEN (or --token)");
    }
    Path workspace = Path.of(args.get("workspace", DEFAULT_WORKSPACE)).toAbsolutePath()
        .normalize();
    String hostname = args.get("hostname").orElseGet(DroneCommand::localHostname);
    CommandSandbox sandbox = SandboxOptions.of(args);
    int keep = keptCheckpoints(args);
    ToolDeferral deferral;
    try {
      deferral = ToolDeferral.parse(args.get("tool-search", "auto"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--tool-search: " + e.getMessage());
    }
    Integer window = Providers.contextWindow(args);
    LlmClients clients = window == null ? LlmClients.withOwnKeys(console::env)
        : LlmClients.withOwnKeys(console::env).withContextWindow(window);
    SemanticToolIndex embeddings = embeddings(args, console);
    Path userTools = userTools(args);
    WorkspaceLock held;
    try {
      // At once, before waiting for the server: a second drone on this workspace stops here.
      held = WorkspaceLock.acquire(workspace, hostname, Clock.systemUTC());
    } catch (WorkspaceException e) {
      throw new CommandException(e.getMessage(), e);
    }
    CompletableFuture<Integer> exit = new CompletableFuture<>();
    String shown = WorkOrder.ProjectRef.withoutCredentials(servers.stream()
        .map(ServerAddress::toString).collect(java.util.stream.Collectors.joining(", ")));
    ConsoleDroneListener listener = new ConsoleDroneListener(console.out(), shown, exit);
    McpToolset mcp;
    try {
      mcp = DroneMcp.start(args.get("mcp").map(Path::of).orElse(null), console);
    } catch (RuntimeException e) {
      held.close();
      throw e;
    }
    List<Tool> tools = DroneMcp.tools(mcp);
    Function<Path, TurnTools> projectMcp = args.flag("project-mcp") ? DroneMcp::forProject : null;
    console.out().println("Gadget drone " + Main.VERSION + ": workspace " + workspace
        + ", server " + shown);
    (sandbox.problem().isPresent() ? console.err() : console.out())
        .println(SandboxOptions.describe(sandbox));
    Running drone = new RunningDrone(servers, held, sockets -> start(sockets, token, workspace,
        hostname, clients, listener, tools, projectMcp,
        b -> b.sandbox(sandbox).keptCheckpoints(keep).toolDeferral(deferral)
            .toolEmbeddings(embeddings).userSkills(userSkills(args))
            .toolExamples(toolExamples(args, workspace))
            .userTools(userTools)
            .createTools(args.flag("create-tools"))),
        listener,
        console.err(), exit).start();
    return DroneMcp.closingWith(drone, mcp);
  }

  /** Where --tool-examples keeps the examples (made if missing), or {@code null} without it. */
  static Path toolExamples(Args args, Path workspace) {
    if (!args.flag("tool-examples")) {
      return null;
    }
    Path dir = workspace.resolve(".gadget").resolve("tool-examples");
    try {
      return java.nio.file.Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new UsageException("--tool-examples: cannot make " + dir + " (" + e.getMessage()
          + ")");
    }
  }

  /** The embeddings --embed-model asks for, or {@code null} for search by words only. */
  static SemanticToolIndex embeddings(Args args, Console console) {
    String api = args.get("embed-api", "ollama").toLowerCase(java.util.Locale.ROOT);
    if (!api.equals("ollama") && !api.equals("openai")) {
      throw new UsageException("--embed-api: ollama or openai, not '" + api + "'");
    }
    String model = args.get("embed-model").orElse(null);
    if (model == null) {
      if (args.get("embed-url").isPresent()) {
        throw new UsageException("--embed-url needs --embed-model: which model to ask");
      }
      return null;
    }
    URI url;
    try {
      url = URI.create(args.get("embed-url").orElse(api.equals("ollama")
          ? HttpToolEmbedder.OLLAMA_DEFAULT.toString() : "https://api.openai.com"));
      String key = console.env("GADGET_EMBED_API_KEY");
      HttpToolEmbedder embedder = api.equals("ollama") ? HttpToolEmbedder.ollama(url, model)
          : HttpToolEmbedder.openAi(url, model, key != null ? key : console.env("OPENAI_API_KEY"));
      return new SemanticToolIndex(embedder);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--embed-url: " + e.getMessage());
    }
  }

  /** Starts a drone on the WebSocket transport with the coding tools. */
  static GadgetDrone start(URI socket, String token, Path workspace, String hostname,
      LlmClients llm, ConsoleDroneListener listener) {
    return start(socket, token, workspace, hostname, llm, listener, b -> b);
  }

  /** {@link #start} with {@code tweaks} applied to the drone's builder last (the demo's meters). */
  static GadgetDrone start(URI socket, String token, Path workspace, String hostname,
      LlmClients llm, ConsoleDroneListener listener, UnaryOperator<GadgetDrone.Builder> tweaks) {
    return start(socket, token, workspace, hostname, llm, listener, CodingTools.all(), null,
        tweaks);
  }

  /**
   * Starts a drone on the WebSocket transport with these tools (and, nullable, each turn's),
   * {@code tweaks} applied to its builder last.
   */
  static GadgetDrone start(URI socket, String token, Path workspace, String hostname,
      LlmClients llm, ConsoleDroneListener listener, List<Tool> tools,
      Function<Path, TurnTools> turnTools, UnaryOperator<GadgetDrone.Builder> tweaks) {
    return start(List.of(socket), token, workspace, hostname, llm, listener, tools, turnTools,
        tweaks);
  }

  /** As above, on several servers (a cluster's nodes): the next is tried after each drop. */
  static GadgetDrone start(List<URI> sockets, String token, Path workspace, String hostname,
      LlmClients llm, ConsoleDroneListener listener, List<Tool> tools,
      Function<Path, TurnTools> turnTools, UnaryOperator<GadgetDrone.Builder> tweaks) {
    WebSocketTransportClient client = WebSocketTransportClient.builder().uris(sockets).build();
    GadgetDrone drone = tweaks.apply(GadgetDrone.builder()
        .transport(client)
        .token(token)
        .workspaceDir(workspace)
        .hostname(hostname)
        .llmClients(llm)
        .tools(tools)
        .turnTools(turnTools)
        .listener(listener))
        .build();
    try {
      drone.start();
    } catch (WorkspaceException e) {
      client.close();
      throw new CommandException(e.getMessage(), e);
    }
    return drone;
  }

  /** The folders --user-skills names: by default ~/.agents/skills, none with "none". */
  static List<Path> userSkills(Args args) {
    String v = args.get("user-skills").orElse(null);
    if (v == null) {
      return List.of(Path.of(System.getProperty("user.home"), ".agents", "skills"));
    }
    return v.strip().equals("none") ? List.of() : List.of(SandboxOptions.paths(args, "user-skills"));
  }

  /** The folder --user-tools names: by default ~/.agents/tools, null with "none". */
  static Path userTools(Args args) {
    String v = args.get("user-tools").map(String::strip).orElse(null);
    if (v == null) {
      return Path.of(System.getProperty("user.home"), ".agents", "tools");
    }
    if (v.equals("none")) {
      return null;
    }
    Path[] dirs = SandboxOptions.paths(args, "user-tools");
    if (dirs.length != 1) {
      throw new UsageException("--user-tools: one folder, not " + dirs.length);
    }
    return dirs[0];
  }

  private static int keptCheckpoints(Args args) {
    String v = args.get("keep-checkpoints").orElse(null);
    if (v == null) {
      return GitChanges.DEFAULT_KEPT_CHECKPOINTS;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new UsageException("--keep-checkpoints takes a number of turns, 1 or more; not '"
        + v + "'");
  }

  private static String localHostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
