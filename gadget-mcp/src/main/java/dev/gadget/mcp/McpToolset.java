package dev.gadget.mcp;

import dev.gadget.core.agent.Tool;
import dev.gadget.mcp.internal.ServerConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Running MCP servers and their tools, ready for an {@link dev.gadget.core.agent.AgentLoop}: each
 * server's tools become Gadget {@link Tool}s named {@code server__tool} (other characters become
 * {@code _}), with the server's JSON schema passed through as their parameters. A tool's text
 * content goes back to the model; an MCP error result ({@code isError}) and a server that stopped
 * or does not answer become error results the model reads, and the turn goes on.
 *
 * <p><b>Lifecycle.</b> {@link Builder#start()} starts every stdio server as a child process (or
 * reaches every HTTP server), completes MCP's handshake and lists the tools, within the timeout
 * for each; if one fails, the ones already started are closed and an {@link McpException} names
 * it. {@link #close()} ends every session and every server process (and what it started), so
 * tie a toolset to what uses its tools: one agent run, or a drone. Thread-safe: tools may be
 * called from several runs at once.
 *
 * <pre>{@code
 * try (McpToolset mcp = McpToolset.builder()
 *     .server(McpServerConfig.stdio("fs", List.of("npx", "-y", "@modelcontextprotocol/server-filesystem", ".")))
 *     .start()) {
 *   AgentLoop loop = AgentLoop.builder().llmClient(llm).tools(mcp.tools()).build();
 *   ...
 * }
 * }</pre>
 */
public final class McpToolset implements AutoCloseable {
  private final List<ServerConnection> servers;
  private final List<Tool> tools;

  private McpToolset(List<ServerConnection> servers, List<Tool> tools) {
    this.servers = List.copyOf(servers);
    this.tools = List.copyOf(tools);
  }

  /** A builder with no servers and a 60-second timeout. */
  public static Builder builder() {
    return new Builder();
  }

  /** Every server's tools, in the servers' order. */
  public List<Tool> tools() {
    return tools;
  }

  /** The processes of a stdio server (empty for HTTP), such as for diagnostics. */
  public List<ProcessHandle> processes(String server) {
    for (ServerConnection connection : servers) {
      if (connection.name().equals(server)) {
        return connection.processes();
      }
    }
    throw new IllegalArgumentException("no MCP server named \"" + server + "\"");
  }

  /** Ends every server's session and process, waiting for each (then killing it). Idempotent. */
  @Override
  public void close() {
    for (ServerConnection server : servers) {
      server.close();
    }
  }

  /** Configures and starts an {@link McpToolset}. */
  public static final class Builder {
    private final Map<String, McpServerConfig> servers = new LinkedHashMap<>();
    private Duration timeout = Duration.ofSeconds(60);

    private Builder() {}

    /** Adds a server; names must be unique. */
    public Builder server(McpServerConfig server) {
      Objects.requireNonNull(server, "server");
      if (servers.putIfAbsent(server.name(), server) != null) {
        throw new IllegalArgumentException("two MCP servers are named \"" + server.name() + "\"");
      }
      return this;
    }

    /** Adds servers, such as {@link McpConfig#read}'s. */
    public Builder servers(List<McpServerConfig> servers) {
      servers.forEach(this::server);
      return this;
    }

    /** How long a server may take to start and to answer one request (60 s by default). */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * Starts every server and lists its tools.
     *
     * @throws McpException naming the server that could not be started or listed, and why; the
     *     servers started before it are closed
     */
    public McpToolset start() {
      List<ServerConnection> started = new ArrayList<>();
      List<Tool> tools = new ArrayList<>();
      try {
        Set<String> names = new HashSet<>();
        for (McpServerConfig config : servers.values()) {
          ServerConnection connection = ServerConnection.open(config, timeout);
          started.add(connection);
          for (Tool tool : connection.tools()) {
            if (!names.add(tool.name())) {
              throw new McpException("the MCP server \"" + config.name() + "\" has two tools "
                  + "that are both called \"" + tool.name() + "\" once made model-safe");
            }
            tools.add(tool);
          }
        }
      } catch (RuntimeException e) {
        started.forEach(ServerConnection::close);
        throw e;
      }
      return new McpToolset(started, tools);
    }
  }
}
