package dev.gadget.acp;

import dev.gadget.acp.internal.AcpServer;
import dev.gadget.acp.internal.AgentSettings;
import dev.gadget.core.agent.AgentLimits;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ModelParams;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Gadget's agent loop as an Agent Client Protocol agent: an editor (Zed, a JetBrains IDE,
 * Neovim's CodeCompanion) starts the process and speaks JSON-RPC 2.0 to it, one message a line,
 * on its standard input and output.
 *
 * <pre>{@code
 * AcpAgent.builder().llmClient(client).model("qwen3").build().serve(System.in, System.out);
 * }</pre>
 *
 * <p>Each {@code session/new} opens a session on the editor's project directory ({@code cwd}),
 * with the MCP servers the editor passes; each {@code session/prompt} runs one turn of the
 * {@link dev.gadget.core.agent.AgentLoop} there and streams it as {@code session/update}s, ending
 * with a stop reason; {@code session/cancel} stops it at once. Calls the
 * {@link Builder#approvalPolicy approval policy} holds back are asked of the editor with
 * {@code session/request_permission}. When the editor offers its file system, files are read and
 * written through it, and commands run in its terminal when it offers one. Sessions are stored
 * ({@link Builder#sessionsDirectory}) and {@code session/load} replays them. See
 * {@code docs/ACP.md}.
 *
 * <p><b>Threading.</b> An {@code AcpAgent} is immutable; {@link #serve} blocks its caller until
 * the input ends and may be called for several connections at once. Nothing is ever written to
 * {@code out} but protocol messages: logs go through SLF4J (to standard error in
 * {@code gadget.jar}).
 */
public final class AcpAgent {
  /** The default bound on one message from the editor: 8 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 8 << 20;

  private final AgentSettings settings;

  private AcpAgent(AgentSettings settings) {
    this.settings = settings;
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Serves one editor: reads its messages from {@code in} until it ends, answering on
   * {@code out}. Then cancels whatever still runs and stops the sessions' MCP servers.
   *
   * @throws IOException when reading {@code in} fails
   */
  public void serve(InputStream in, OutputStream out) throws IOException {
    new AcpServer(settings).serve(Objects.requireNonNull(in, "in"),
        Objects.requireNonNull(out, "out"));
  }

  /**
   * The user's data directory for sessions: {@code $XDG_DATA_HOME/gadget/acp} when
   * {@code XDG_DATA_HOME} is set, else {@code ~/.local/share/gadget/acp}
   * ({@code %LOCALAPPDATA%\gadget\acp} on Windows).
   */
  public static Path defaultSessionsDirectory() {
    String xdg = System.getenv("XDG_DATA_HOME");
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      return Path.of(xdg, "gadget", "acp");
    }
    String local = System.getenv("LOCALAPPDATA");
    if (local != null && !local.isBlank() && System.getProperty("os.name", "").startsWith("Win")) {
      return Path.of(local, "gadget", "acp");
    }
    return Path.of(System.getProperty("user.home"), ".local", "share", "gadget", "acp");
  }

  /** Builds an {@link AcpAgent}. */
  public static final class Builder {
    private LlmClient llm;
    private String model;
    private ModelParams params;
    private List<Tool> tools = CodingTools.all();
    private AgentLimits limits = AgentLimits.DEFAULTS;
    private Function<Path, CommandSandbox> sandbox =
        dir -> CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE).build();
    private ApprovalPolicy approvalPolicy = ApprovalPolicy.COMMANDS_AND_WRITES;
    private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
    private Duration mcpTimeout = Duration.ofSeconds(60);
    private String name = "gadget";
    private String version = "0.1.0-SNAPSHOT";
    private Path sessionsDirectory = defaultSessionsDirectory();
    private boolean editorTerminal = true;

    private Builder() {}

    /** The model's client. Required. */
    public Builder llmClient(LlmClient llm) {
      this.llm = Objects.requireNonNull(llm, "llm");
      return this;
    }

    /** The model id. Required; an editor's {@code session/set_model} changes it per session. */
    public Builder model(String model) {
      this.model = Objects.requireNonNull(model, "model");
      return this;
    }

    /** Sampling parameters (default: the model's own). */
    public Builder params(ModelParams params) {
      this.params = params;
      return this;
    }

    /**
     * The tools (default {@link CodingTools#all()}). With the editor's file system,
     * {@code read_file}, {@code write_file} and {@code edit_file} go through it instead.
     */
    public Builder tools(List<? extends Tool> tools) {
      this.tools = List.copyOf(tools);
      return this;
    }

    /** The limits of one turn (default {@link AgentLimits#DEFAULTS}). */
    public Builder limits(AgentLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Where a session's commands run, from its project directory (default: a
     * {@link SandboxPolicy#WORKSPACE_WRITE workspace-write} {@link CommandSandbox}).
     */
    public Builder sandbox(Function<Path, CommandSandbox> sandbox) {
      this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
      return this;
    }

    /**
     * Which calls ask the editor first (default {@link ApprovalPolicy#COMMANDS_AND_WRITES}:
     * commands and file changes).
     */
    public Builder approvalPolicy(ApprovalPolicy policy) {
      this.approvalPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * The longest message read from the editor, in bytes (default
     * {@value #DEFAULT_MAX_MESSAGE_BYTES}); a longer one is answered with an error and skipped.
     */
    public Builder maxMessageBytes(int bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException("maxMessageBytes must be at least 1024: " + bytes);
      }
      this.maxMessageBytes = bytes;
      return this;
    }

    /** How long an editor's MCP server may take to start and to answer (default 60 s). */
    public Builder mcpTimeout(Duration timeout) {
      this.mcpTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /** The name and version the agent gives in {@code initialize}. */
    public Builder agentInfo(String name, String version) {
      this.name = Objects.requireNonNull(name, "name");
      this.version = Objects.requireNonNull(version, "version");
      return this;
    }

    /**
     * Where sessions are stored so that {@code session/load} can bring them back, one journaled
     * store directory each ({@code <dir>/sessions/<sessionId>/}, readable by their owner only):
     * the turns (prompts, thinking, replies, tool calls and their output, compactions), never a
     * key. Default: the user's data directory, {@code $XDG_DATA_HOME/gadget/acp} or
     * {@code ~/.local/share/gadget/acp}. {@code null} keeps sessions in memory only, and the
     * agent does not offer {@code loadSession}.
     */
    public Builder sessionsDirectory(Path dir) {
      this.sessionsDirectory = dir;
      return this;
    }

    /**
     * Whether {@code run_command} runs in the editor's terminal when the editor offers one
     * (default {@code true}); {@code false} keeps every command in the {@link #sandbox}.
     */
    public Builder editorTerminal(boolean use) {
      this.editorTerminal = use;
      return this;
    }

    /** The agent. */
    public AcpAgent build() {
      Objects.requireNonNull(llm, "llmClient");
      Objects.requireNonNull(model, "model");
      return new AcpAgent(new AgentSettings(llm, model, params, tools, limits, sandbox,
          approvalPolicy, maxMessageBytes, mcpTimeout, name, version, sessionsDirectory,
          editorTerminal));
    }
  }
}
