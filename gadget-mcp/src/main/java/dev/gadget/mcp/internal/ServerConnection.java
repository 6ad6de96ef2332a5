package dev.gadget.mcp.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gadget.core.agent.Tool;
import dev.gadget.mcp.McpException;
import dev.gadget.mcp.McpServerConfig;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running MCP server: its SDK client, its tools and, for stdio, its process (found among this
 * process's children when it starts, so closing can make sure nothing of it is left).
 */
public final class ServerConnection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServerConnection.class);
  /** Children are told apart by the ones that appear while a server starts: one start at a time. */
  private static final Object SPAWN = new Object();
  private static final int MAX_TOOL_PAGES = 100;
  private static final long POLL_MILLIS = 50;

  private final McpServerConfig config;
  private final Duration timeout;
  private final StderrTail stderr;
  private final ObjectMapper json = new ObjectMapper();
  private McpAsyncClient client;
  private List<ProcessHandle> processes = List.of();

  private ServerConnection(McpServerConfig config, Duration timeout) {
    this.config = config;
    this.timeout = timeout;
    this.stderr = new StderrTail(config.name());
  }

  /** Starts (or reaches) the server and completes MCP's handshake; closes it again on failure. */
  public static ServerConnection open(McpServerConfig config, Duration timeout) {
    ServerConnection connection = new ServerConnection(config, timeout);
    try {
      connection.connect();
      return connection;
    } catch (RuntimeException e) {
      connection.close();
      throw new McpException("could not start the MCP server \"" + config.name() + "\" ("
          + where(config) + "): " + connection.why(e), e);
    }
  }

  private void connect() {
    if (config.isStdio()) {
      requireProgram();
    }
    McpClientTransport transport = config.isStdio() ? stdio() : http();
    client = McpClient.async(transport)
        .clientInfo(new McpSchema.Implementation("gadget", "Gadget", "0.1.0"))
        .requestTimeout(timeout)
        .initializationTimeout(timeout)
        .build();
    if (!config.isStdio()) {
      await(client.initialize().toFuture());
      return;
    }
    synchronized (SPAWN) {
      Set<Long> before = childPids();
      CompletableFuture<McpSchema.InitializeResult> initialized = client.initialize().toFuture();
      long deadline = System.nanoTime() + timeout.toNanos();
      // Wait for the handshake, noticing the process as soon as it appears, and giving up as
      // soon as it has exited rather than at the end of the timeout.
      while (!initialized.isDone()) {
        if (processes.isEmpty()) {
          processes = ProcessHandle.current().children()
              .filter(p -> !before.contains(p.pid()))
              .filter(this::looksLikeOurs)
              .collect(Collectors.toList());
        } else if (processes.stream().noneMatch(ProcessHandle::isAlive)) {
          initialized.cancel(true);
          throw new IllegalStateException("it exited");
        }
        if (System.nanoTime() > deadline) {
          initialized.cancel(true);
          throw new IllegalStateException(new TimeoutException());
        }
        try {
          initialized.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
          // checked again above, or thrown by await below
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          initialized.cancel(true);
          throw new IllegalStateException("interrupted while it started", e);
        }
      }
      if (processes.isEmpty()) {
        processes = ProcessHandle.current().children()
            .filter(p -> !before.contains(p.pid()))
            .filter(this::looksLikeOurs)
            .collect(Collectors.toList());
      }
      await(initialized);
    }
  }

  /** The future's value; its failure as it is; a bound of the timeout and a few seconds. */
  private <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Calls a tool: the server's result, or an exception when it fails, stops answering, or its
   * process exits during the call (noticed at once, not at the end of the timeout).
   */
  McpSchema.CallToolResult call(McpSchema.CallToolRequest request) throws InterruptedException {
    if (gone()) {
      throw new IllegalStateException("the server is no longer running");
    }
    CompletableFuture<McpSchema.CallToolResult> call = client.callTool(request).toFuture();
    CompletableFuture<?> exited = processes.isEmpty() ? new CompletableFuture<>()
        : CompletableFuture.allOf(processes.stream().map(ProcessHandle::onExit)
            .toArray(CompletableFuture[]::new));
    try {
      CompletableFuture.anyOf(call, exited)
          .get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      // the call failed: thrown below
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      call.cancel(true);
      throw e;
    }
    if (!call.isDone()) {
      call.cancel(true);
      throw new IllegalStateException("the server is no longer running");
    }
    return await(call);
  }

  private boolean gone() {
    return config.isStdio() && !processes.isEmpty()
        && processes.stream().noneMatch(ProcessHandle::isAlive);
  }

  /**
   * Fails at once, in words, when the server's program is neither a file nor on the PATH (with a
   * working directory set, the SDK would otherwise wait its whole timeout).
   */
  private void requireProgram() {
    String program = config.command().get(0);
    if (System.getProperty("os.name", "").startsWith("Windows")) {
      return; // PATHEXT and the rest: the process start says it
    }
    if (program.contains("/")) {
      java.nio.file.Path file = java.nio.file.Path.of(program);
      if (!file.isAbsolute() && config.workingDir() != null) {
        file = config.workingDir().resolve(file);
      }
      if (!java.nio.file.Files.isExecutable(file)) {
        throw new IllegalStateException("its program " + file + " is not an executable file");
      }
      return;
    }
    String path = String.valueOf(System.getenv("PATH"));
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (!dir.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, program))) {
        return;
      }
    }
    throw new IllegalStateException("its program \"" + program + "\" is not on the PATH");
  }

  private McpClientTransport stdio() {
    List<String> command = config.command();
    ServerParameters parameters = ServerParameters.builder(command.get(0))
        .args(command.subList(1, command.size()))
        .env(config.env())
        .build();
    StdioClientTransport transport =
        new StdioClientTransport(parameters, new JacksonMcpJsonMapper(json)) {
          @Override
          protected ProcessBuilder getProcessBuilder() {
            ProcessBuilder builder = super.getProcessBuilder();
            if (config.workingDir() != null) {
              builder.directory(config.workingDir().toFile());
            }
            return builder;
          }
        };
    transport.setStdErrorHandler(stderr::accept);
    return transport;
  }

  private McpClientTransport http() {
    URI url = config.url();
    String base = url.getScheme() + "://" + url.getRawAuthority();
    String endpoint = (url.getRawPath() == null || url.getRawPath().isEmpty() ? "/"
        : url.getRawPath()) + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
    return HttpClientStreamableHttpTransport.builder(base)
        .endpoint(endpoint)
        .jsonMapper(new JacksonMcpJsonMapper(json))
        .connectTimeout(timeout)
        .requestBuilder(headers())
        .build();
  }

  private java.net.http.HttpRequest.Builder headers() {
    java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder();
    config.headers().forEach(request::header);
    return request;
  }

  private boolean looksLikeOurs(ProcessHandle child) {
    List<String> command = config.command();
    String last = command.get(command.size() - 1);
    String line = child.info().commandLine().orElse("");
    return command.size() == 1 || line.isEmpty() || line.contains(last);
  }

  private static Set<Long> childPids() {
    return ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
  }

  /** The server's tools, every page of them, as Gadget tools named {@code server__tool}. */
  public List<Tool> tools() {
    List<Tool> tools = new ArrayList<>();
    String cursor = null;
    for (int page = 0; page < MAX_TOOL_PAGES; page++) {
      McpSchema.ListToolsResult result;
      try {
        result = await(cursor == null ? client.listTools().toFuture()
            : client.listTools(cursor).toFuture());
      } catch (RuntimeException e) {
        throw new McpException("could not list the tools of the MCP server \"" + config.name()
            + "\": " + why(e), e);
      }
      for (McpSchema.Tool tool : result.tools()) {
        tools.add(new McpTool(this, tool, json));
      }
      cursor = result.nextCursor();
      if (cursor == null || cursor.isEmpty()) {
        break;
      }
    }
    return tools;
  }

  /** The server's name. */
  public String name() {
    return config.name();
  }

  /** The processes this server runs as (stdio), for tests and diagnostics; empty for HTTP. */
  public List<ProcessHandle> processes() {
    return processes;
  }

  /** What went wrong, in words: the server's exit and last stderr line, a timeout, its error. */
  String why(Throwable failure) {
    if (gone()) {
      return "the server is no longer running" + stderr.lastWords();
    }
    Throwable root = McpError.findRootCause(failure);
    String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException
          || String.valueOf(t.getMessage()).contains("Did not observe any item")) {
        return "it did not answer within " + timeout.toSeconds() + " s" + stderr.lastWords();
      }
      if (t instanceof java.net.ConnectException && !config.isStdio()) {
        return "nothing answers at " + config.url();
      }
      if (t instanceof McpError) {
        return t.getMessage();
      }
    }
    return message + stderr.lastWords();
  }

  private static String where(McpServerConfig config) {
    return config.isStdio() ? String.join(" ", config.command()) : config.url().toString();
  }

  /** How long closing waits for each step: the timeout, but at most 10 s. */
  private long closeWait() {
    return Math.min(timeout.toMillis(), 10_000);
  }

  /** Ends the session and the server's processes, waiting at most the timeout for each. */
  @Override
  public void close() {
    List<ProcessHandle> tree = new ArrayList<>();
    for (ProcessHandle process : processes) {
      tree.add(process);
      process.descendants().forEach(tree::add);
    }
    if (client != null) {
      try {
        client.closeGracefully().toFuture().get(closeWait(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        client.close();
      } catch (ExecutionException | TimeoutException e) {
        log.debug("closing the MCP server {}", config.name(), e);
        client.close();
      } catch (RuntimeException e) {
        log.debug("closing the MCP server {}", config.name(), e);
      }
    }
    for (ProcessHandle process : tree) {
      if (process.isAlive()) {
        process.destroy();
      }
    }
    for (ProcessHandle process : tree) {
      try {
        process.onExit().get(closeWait(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        log.warn("the MCP server {} (pid {}) did not stop: killing it", config.name(),
            process.pid());
        process.destroyForcibly();
      }
    }
  }
}
