package dev.gadget.mcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The real MCP servers from npm that the build installs in src/test/node (package-lock.json). */
final class NodeServers {
  static final Path NODE_MODULES = Paths.get("src/test/node/node_modules").toAbsolutePath();
  static final Duration DEADLINE = Duration.ofSeconds(30);

  private NodeServers() {}

  private static String main(String pkg) {
    Path script = NODE_MODULES.resolve("@modelcontextprotocol").resolve(pkg).resolve("dist/index.js");
    if (!Files.isRegularFile(script)) {
      throw new IllegalStateException(script + " is missing: the build installs it "
          + "(./mvnw -pl gadget-mcp generate-test-resources runs npm ci in src/test/node)");
    }
    return script.toString();
  }

  /** server-filesystem over stdio, allowed to read and write {@code dir} only. */
  static McpServerConfig filesystem(String name, Path dir) {
    return McpServerConfig.stdio(name, List.of("node", main("server-filesystem"), dir.toString()));
  }

  /** server-memory over stdio, keeping its knowledge graph in {@code file}. */
  static McpServerConfig memory(String name, Path file) {
    return McpServerConfig.stdio(name, List.of("node", main("server-memory")))
        .withEnv(java.util.Map.of("MEMORY_FILE_PATH", file.toString()));
  }

  /**
   * chrome-devtools-mcp over stdio (32 tools), without usage statistics; it starts no browser
   * until a tool needs one.
   */
  static McpServerConfig chromeDevtools(String name) {
    Path script = NODE_MODULES.resolve("chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js");
    if (!Files.isRegularFile(script)) {
      throw new IllegalStateException(script + " is missing: the build installs it "
          + "(./mvnw -pl gadget-mcp generate-test-resources runs npm ci in src/test/node)");
    }
    return McpServerConfig.stdio(name, List.of("node", script.toString(),
        "--no-usage-statistics")).withEnv(java.util.Map.of("CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS", "1"));
  }

  /** server-everything over stdio. */
  static McpServerConfig everythingStdio(String name) {
    return McpServerConfig.stdio(name, List.of("node", main("server-everything"), "stdio"));
  }

  /** server-everything over streamable HTTP on 127.0.0.1, as its own process. */
  static final class EverythingHttp implements AutoCloseable {
    final Process process;
    final URI url;

    EverythingHttp() throws Exception {
      int port;
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      ProcessBuilder builder = new ProcessBuilder("node", main("server-everything"),
          "streamableHttp");
      builder.environment().put("PORT", Integer.toString(port));
      builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
      process = builder.start();
      url = URI.create("http://127.0.0.1:" + port + "/mcp");
      CompletableFuture<Boolean> listening = CompletableFuture.supplyAsync(() -> {
        try (BufferedReader err = new BufferedReader(
            new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
          String line;
          boolean seen = false;
          while ((line = err.readLine()) != null) {
            if (line.contains("listening on port")) {
              seen = true;
              listeningLatch.complete(true);
            }
          }
          return seen;
        } catch (IOException e) {
          return false;
        }
      });
      try {
        if (!listeningLatch.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException("server-everything did not start");
        }
      } catch (Exception e) {
        close();
        throw new IllegalStateException("server-everything did not say it listens on " + port
            + " within " + DEADLINE + " (exited: " + !process.isAlive() + ", " + listening + ")", e);
      }
    }

    private final CompletableFuture<Boolean> listeningLatch = new CompletableFuture<>();

    @Override
    public void close() throws Exception {
      process.destroy();
      if (!process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
