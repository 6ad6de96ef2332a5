package dev.gadget.mcp;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One MCP server: a command started as a child process that speaks MCP on its standard input and
 * output ({@link #stdio}), or a URL that speaks MCP's streamable HTTP ({@link #http}). Immutable;
 * {@link #toString()} names the environment variables and headers but never their values, which
 * often hold secrets.
 *
 * @param name the server's name: 1 to 32 letters, digits, {@code _} or {@code -}; its tools are
 *     offered to the model as {@code name__tool}
 * @param command the program and its arguments (stdio), or empty (HTTP)
 * @param env variables added to the child's environment (stdio; the drone's own are inherited)
 * @param workingDir the child's working directory, or {@code null} for the caller's (stdio)
 * @param url the MCP endpoint, {@code http} or {@code https}, or {@code null} (stdio)
 * @param headers HTTP headers sent with every request, such as {@code Authorization} (HTTP)
 */
public record McpServerConfig(String name, List<String> command, Map<String, String> env,
    Path workingDir, URI url, Map<String, String> headers) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");

  public McpServerConfig {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("an MCP server's name must be 1 to 32 letters, digits, "
          + "'_' or '-': \"" + name + "\"");
    }
    command = List.copyOf(Objects.requireNonNull(command, "command"));
    env = Map.copyOf(Objects.requireNonNull(env, "env"));
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    if (command.isEmpty() == (url == null)) {
      throw new IllegalArgumentException("the MCP server \"" + name
          + "\" needs either a command (stdio) or a url (streamable HTTP), not both");
    }
    if (url != null && !"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
      throw new IllegalArgumentException("the MCP server \"" + name
          + "\" has a url that is not http:// or https://: " + url);
    }
  }

  /** A server started as {@code command} (the program, then its arguments) over stdio. */
  public static McpServerConfig stdio(String name, List<String> command) {
    return new McpServerConfig(name, command, Map.of(), null, null, Map.of());
  }

  /** A server reached at {@code url} over streamable HTTP. */
  public static McpServerConfig http(String name, URI url) {
    return new McpServerConfig(name, List.of(), Map.of(), null, Objects.requireNonNull(url, "url"),
        Map.of());
  }

  /** This server with these environment variables added to its process's. */
  public McpServerConfig withEnv(Map<String, String> env) {
    return new McpServerConfig(name, command, env, workingDir, url, headers);
  }

  /** This server, its process started in {@code dir}. */
  public McpServerConfig withWorkingDir(Path dir) {
    return new McpServerConfig(name, command, env, dir, url, headers);
  }

  /** This server with these HTTP headers on every request. */
  public McpServerConfig withHeaders(Map<String, String> headers) {
    return new McpServerConfig(name, command, env, workingDir, url, headers);
  }

  /** Whether this server is started as a child process (stdio) rather than reached by URL. */
  public boolean isStdio() {
    return url == null;
  }

  /** The server's name and where it is; environment variables and headers by name only. */
  @Override
  public String toString() {
    return "McpServerConfig[" + name + ", " + (isStdio() ? "stdio " + command : "http " + url)
        + (env.isEmpty() ? "" : ", env " + new java.util.TreeSet<>(env.keySet()))
        + (headers.isEmpty() ? "" : ", headers " + new java.util.TreeSet<>(headers.keySet()))
        + (workingDir == null ? "" : ", in " + workingDir) + "]";
  }
}
