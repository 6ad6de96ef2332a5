package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.mcp.McpException;
import dev.gadget.mcp.McpServerConfig;
import dev.gadget.mcp.McpToolset;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ACP methods of one connection: {@code initialize}, {@code authenticate},
 * {@code session/new}, {@code session/load}, {@code session/prompt}, {@code session/set_model}
 * and the {@code session/cancel} notification.
 */
public final class AcpServer {
  /** The ACP protocol version Gadget speaks. */
  public static final int PROTOCOL_VERSION = 1;
  private static final Logger log = LoggerFactory.getLogger(AcpServer.class);
  private static final AtomicInteger THREADS = new AtomicInteger();
  /** The most requests of one editor answered at once; one more is refused in words. */
  static final int MAX_REQUESTS = 32;

  private final AgentSettings settings;
  private final SessionStore store;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private volatile ClientCapabilities client = ClientCapabilities.NONE;

  /** A server with these settings. */
  public AcpServer(AgentSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.store = new SessionStore(settings.sessionsDirectory());
  }

  /** Serves one editor on {@code in} and {@code out} until {@code in} ends. */
  public void serve(InputStream in, OutputStream out) throws IOException {
    // one thread a request being answered (a prompt holds one for its turn), at most MAX_REQUESTS
    ExecutorService workers = new ThreadPoolExecutor(0, MAX_REQUESTS, 30, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "gadget-acp-" + THREADS.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    RpcConnection connection = new RpcConnection(out, settings.maxMessageBytes(), workers);
    connection.method("initialize", this::initialize)
        .method("authenticate", params -> GadgetJson.mapper().createObjectNode())
        .method("session/new", params -> newSession(connection, params))
        .method("session/load", params -> loadSession(connection, params))
        .method("session/prompt", this::prompt)
        .method("session/set_model", this::setModel)
        .notification("session/cancel", params -> {
          Session s = sessions.get(params.path("sessionId").asText(""));
          if (s != null) {
            s.cancel();
          }
        });
    try {
      connection.serve(in);
    } finally {
      sessions.values().forEach(Session::close);
      workers.shutdownNow();
    }
  }

  private Object initialize(JsonNode params) {
    client = ClientCapabilities.of(params.get("clientCapabilities"));
    log.info("editor {} connected (fs read {}, fs write {})",
        params.path("clientInfo").path("name").asText("(unnamed)"), client.readTextFile(),
        client.writeTextFile());
    ObjectNode result = GadgetJson.mapper().createObjectNode()
        .put("protocolVersion", PROTOCOL_VERSION);
    ObjectNode caps = result.putObject("agentCapabilities").put("loadSession",
        store.durable());
    caps.putObject("promptCapabilities").put("image", false).put("audio", false)
        .put("embeddedContext", true);
    caps.putObject("mcpCapabilities").put("http", true).put("sse", false);
    result.putObject("agentInfo").put("name", settings.name()).put("title", "Gadget")
        .put("version", settings.version());
    result.putArray("authMethods");
    return result;
  }

  private Object newSession(RpcConnection connection, JsonNode params) {
    Path cwd = directory(params.get("cwd"));
    List<McpServerConfig> servers = mcpServers(params.get("mcpServers"), cwd);
    String id = "gadget-" + UUID.randomUUID();
    McpToolset mcp = startMcp(servers);
    Session session = new Session(id, cwd, settings, connection, client, mcp,
        store.create(id, cwd, settings.model()));
    sessions.put(id, session);
    log.info("session {} on {} ({} MCP tools)", id, cwd, mcp == null ? 0 : mcp.tools().size());
    return sessionResult(session).put("sessionId", id);
  }

  /**
   * Opens a stored session on the editor's {@code cwd} with its MCP servers, and replays its
   * turns as updates before answering. A session already open in this process is replayed as it
   * stands.
   */
  private Object loadSession(RpcConnection connection, JsonNode params) {
    String id = params.path("sessionId").asText("");
    if (id.isBlank()) {
      throw RpcException.invalidParams("session/load needs the \"sessionId\" of a stored "
          + "session.");
    }
    Path cwd = directory(params.get("cwd"));
    Session session;
    synchronized (sessions) { // one load of a session at a time: its store opens once
      session = sessions.get(id);
      if (session == null) {
        List<McpServerConfig> servers = mcpServers(params.get("mcpServers"), cwd);
        ChatStore stored = store.open(id);
        McpToolset mcp;
        try {
          TurnRecorder.endAbandoned(stored, id);
          mcp = startMcp(servers);
        } catch (RuntimeException e) {
          stored.close();
          throw e;
        }
        session = new Session(id, cwd, settings, connection, client, mcp, stored);
        sessions.put(id, session);
        log.info("session {} loaded on {}", id, cwd);
      }
    }
    session.replay();
    return sessionResult(session);
  }

  private McpToolset startMcp(List<McpServerConfig> servers) {
    if (servers.isEmpty()) {
      return null;
    }
    try {
      return McpToolset.builder().servers(servers).timeout(settings.mcpTimeout()).start();
    } catch (McpException | IllegalArgumentException e) {
      throw new RpcException(RpcException.INTERNAL_ERROR, "Gadget could not start the "
          + "editor's MCP servers: " + e.getMessage());
    }
  }

  private static ObjectNode sessionResult(Session session) {
    ObjectNode result = GadgetJson.mapper().createObjectNode();
    ObjectNode models = result.putObject("models").put("currentModelId", session.model());
    models.putArray("availableModels").addObject().put("modelId", session.model())
        .put("name", session.model());
    return result;
  }

  private Object prompt(JsonNode params) throws InterruptedException {
    Session session = session(params);
    String text = PromptText.of(params.get("prompt"));
    String stop = session.prompt(text);
    return GadgetJson.mapper().createObjectNode().put("stopReason", stop);
  }

  private Object setModel(JsonNode params) {
    Session session = session(params);
    String model = params.path("modelId").asText("");
    if (model.isBlank()) {
      throw RpcException.invalidParams("session/set_model needs a \"modelId\".");
    }
    session.model(model);
    return GadgetJson.mapper().createObjectNode();
  }

  private Session session(JsonNode params) {
    String id = params.path("sessionId").asText("");
    Session s = sessions.get(id);
    if (s == null) {
      throw new RpcException(RpcException.RESOURCE_NOT_FOUND, id.isEmpty()
          ? "The request names no \"sessionId\"; start one with session/new."
          : "There is no session \"" + id + "\" in this Gadget process; start one with "
              + "session/new.");
    }
    return s;
  }

  private static Path directory(JsonNode cwd) {
    if (cwd == null || !cwd.isTextual() || cwd.asText().isBlank()) {
      throw RpcException.invalidParams("session/new needs a \"cwd\": the project's directory, "
          + "as an absolute path.");
    }
    Path p = Path.of(cwd.asText());
    if (!p.isAbsolute() || !Files.isDirectory(p)) {
      throw RpcException.invalidParams("\"cwd\" must be the absolute path of a directory; "
          + "\"" + cwd.asText() + "\" is not.");
    }
    try {
      return p.toRealPath();
    } catch (IOException e) {
      throw RpcException.invalidParams("Gadget cannot open the directory " + p + ": " + e);
    }
  }

  /** The editor's MCP servers as gadget-mcp configurations. */
  static List<McpServerConfig> mcpServers(JsonNode list, Path cwd) {
    List<McpServerConfig> out = new ArrayList<>();
    if (list == null || !list.isArray()) {
      return out;
    }
    for (JsonNode s : list) {
      String name = s.path("name").asText("mcp").replaceAll("[^A-Za-z0-9_-]", "_");
      name = name.isEmpty() ? "mcp" : name.substring(0, Math.min(32, name.length()));
      String type = s.path("type").asText("stdio");
      if (type.equals("sse")) {
        throw RpcException.invalidParams("The MCP server \"" + name + "\" uses SSE, which "
            + "Gadget does not support; give its streamable HTTP URL (type \"http\").");
      }
      if (type.equals("http")) {
        out.add(McpServerConfig.http(name, URI.create(s.path("url").asText("")))
            .withHeaders(pairs(s.get("headers"))));
        continue;
      }
      List<String> command = new ArrayList<>();
      command.add(s.path("command").asText(""));
      s.path("args").forEach(a -> command.add(a.asText()));
      if (command.get(0).isBlank()) {
        throw RpcException.invalidParams("The MCP server \"" + name + "\" has no \"command\".");
      }
      if (!findable(command.get(0), cwd)) {
        // said at once: the MCP SDK would wait for the missing process until its timeout
        throw RpcException.invalidParams("The MCP server \"" + name + "\" cannot start: its "
            + "program \"" + command.get(0) + "\" is not an executable file, nor on the PATH.");
      }
      out.add(McpServerConfig.stdio(name, command).withEnv(pairs(s.get("env")))
          .withWorkingDir(cwd));
    }
    return out;
  }

  /** Whether {@code program} is an executable file, or one on the PATH. */
  static boolean findable(String program, Path cwd) {
    if (program.contains("/") || program.contains(java.io.File.separator)) {
      return Files.isExecutable(cwd.resolve(program));
    }
    String path = System.getenv("PATH");
    if (path == null) {
      return true; // nothing to look in: let the start say
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  private static Map<String, String> pairs(JsonNode list) {
    Map<String, String> out = new LinkedHashMap<>();
    if (list != null && list.isArray()) {
      list.forEach(p -> out.put(p.path("name").asText(), p.path("value").asText()));
    }
    return out;
  }
}
