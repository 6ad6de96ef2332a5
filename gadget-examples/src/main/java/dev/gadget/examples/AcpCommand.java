package dev.gadget.examples;

import dev.gadget.acp.AcpAgent;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.model.ModelParams;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code gadget acp}: Gadget's agent as an Agent Client Protocol agent on this process's standard
 * input and output, for an editor to start (Zed, JetBrains IDEs, Neovim's CodeCompanion). The
 * model as the demo picks it. Standard output carries the protocol only: anything printed goes to
 * standard error.
 */
final class AcpCommand implements Command {
  private static final Logger log = LoggerFactory.getLogger(AcpCommand.class);

  @Override
  public String name() {
    return "acp";
  }

  @Override
  public String summary() {
    return "be an Agent Client Protocol agent on stdio, for an editor (Zed, JetBrains, Neovim)";
  }

  @Override
  public String description() {
    return """
        Usage: java -jar gadget.jar acp [options]

        Speaks the Agent Client Protocol (JSON-RPC 2.0, one message a line) on standard input
        and output: an editor starts this command and runs Gadget's agent on its project, with
        the files, permissions and MCP servers it offers. The LLM as for demo: --llm when given;
        else an OpenAI-compatible endpoint when --base-url or OPENAI_API_KEY is given; else
        Anthropic when ANTHROPIC_API_KEY is given; else Ollama when one answers on
        127.0.0.1:11434; else scripted replies. Logs go to standard error. See docs/ACP.md.

        Sessions are stored in --sessions-dir (default: the user's data directory,
        $XDG_DATA_HOME/gadget/acp or ~/.local/share/gadget/acp), one directory each, readable
        by you only and never holding a key, so that the editor can load them again
        (session/load); --no-stored-sessions keeps them in memory. A long session is compacted
        as a drone's is: within --context-window tokens when given, else the model's own window
        or 32,000 tokens. Commands run in the editor's terminal when it offers one (the editor
        runs them; the approval policy still asks first) unless --no-editor-terminal, else in
        the sandbox the --sandbox options describe, as for a drone (bubblewrap,
        workspace-write, no network by default).
        """;
  }

  @Override
  public List<OptionSpec> options() {
    List<OptionSpec> all = new ArrayList<>(Providers.OPTIONS);
    all.add(OptionSpec.value("approvals", "POLICY", "which calls ask the editor first: never, "
        + "commands, commands-and-writes (default) or everything"));
    all.add(OptionSpec.value("sessions-dir", "DIR", "where sessions are stored (default "
        + "$XDG_DATA_HOME/gadget/acp, else ~/.local/share/gadget/acp)"));
    all.add(OptionSpec.flag("no-stored-sessions", "keep sessions in memory only: the editor "
        + "cannot load them again"));
    all.add(OptionSpec.value("context-window", "TOKENS", "the model's context window, which "
        + "sets the budget a session is compacted to (default: the model's own, else a "
        + "32,000-token budget)"));
    all.add(OptionSpec.flag("no-editor-terminal", "run commands in the sandbox even when the "
        + "editor offers its terminal"));
    all.addAll(SandboxOptions.OPTIONS);
    return all;
  }

  private static Integer contextWindow(Args args) {
    String v = args.get("context-window").orElse(null);
    if (v == null) {
      return null;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n >= 1024) {
        return n;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new UsageException("--context-window takes a number of tokens, 1024 or more; not '"
        + v + "'");
  }

  @Override
  public Running run(Args args, Console console) throws Exception {
    if (!args.positional().isEmpty()) {
      throw new UsageException("unexpected argument '" + args.positional().get(0) + "'");
    }
    ApprovalPolicy policy;
    try {
      policy = ApprovalPolicy.fromWireName(args.get("approvals", "commands-and-writes"));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    CommandSandbox sandbox = SandboxOptions.of(args);
    Path sessions = args.flag("no-stored-sessions") ? null : args.get("sessions-dir")
        .map(d -> Path.of(d).toAbsolutePath().normalize())
        .orElseGet(AcpAgent::defaultSessionsDirectory);
    Integer window = contextWindow(args);
    // Standard output is the protocol's: whatever else prints goes to standard error.
    OutputStream protocol = new FileOutputStream(FileDescriptor.out);
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
    Console quiet = new Console(System.err, console.err(), console.env());
    Providers.Choice llm = Providers.forDemo(args, quiet, Providers.DEFAULT_OLLAMA_URL);
    // the sandbox is not probed here (that starts bwrap, before initialize could be answered):
    // the agent says at a session's start when commands would be refused
    log.info("Gadget {} ACP agent; LLM: {}; sessions: {}; {}", Main.VERSION, llm.description(),
        sessions == null ? "in memory" : sessions, SandboxOptions.policy(sandbox));
    ModelParams params = llm.config().params();
    if (window != null) {
      params = (params == null ? ModelParams.DEFAULTS : params).withContextWindow(window);
    }
    AcpAgent agent = AcpAgent.builder().llmClient(new LlmClients().apply(llm.config()))
        .model(llm.config().modelId()).params(params).approvalPolicy(policy)
        .sandbox(dir -> sandbox).sessionsDirectory(sessions)
        .editorTerminal(!args.flag("no-editor-terminal"))
        .agentInfo("gadget", Main.VERSION).build();
    CompletableFuture<Integer> exit = new CompletableFuture<>();
    Thread serving = new Thread(() -> {
      try {
        agent.serve(new FileInputStream(FileDescriptor.in), protocol);
        exit.complete(0);
      } catch (Exception e) {
        log.error("the ACP connection failed: {}", e.toString());
        exit.complete(1);
      }
    }, "gadget-acp-stdin");
    serving.setDaemon(true);
    serving.start();
    return new Running() {
      @Override
      public CompletableFuture<Integer> exitCode() {
        return exit;
      }

      @Override
      public void close() {
        // the connection ends with standard input; the agent cancels its turns then
      }
    };
  }
}
