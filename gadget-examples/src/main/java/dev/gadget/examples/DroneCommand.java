package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
        prints its status here and reconnects by itself. The LLM is the one the server's work
        orders name (ollama, openai, anthropic or scripted); the API key comes with the work
        order and stays in memory, or, when the server sends none, from this drone's own
        GADGET_LLM_API_KEY (or OPENAI_API_KEY for openai, ANTHROPIC_API_KEY for anthropic).
        Prefer GADGET_DRONE_TOKEN to --token: command lines are visible to other users of the
        machine.
        """;
  }

  @Override
  public List<OptionSpec> options() {
    return List.of(
        OptionSpec.value("server", "URL", "the server's page URL (default http://127.0.0.1:"
            + ServerCommand.DEFAULT_PORT + "/)"),
        OptionSpec.value("token", "TOKEN", "the drone token (default: $GADGET_DRONE_TOKEN)"),
        OptionSpec.value("workspace", "DIR", "the workspace directory (default "
            + DEFAULT_WORKSPACE + ")"),
        OptionSpec.value("hostname", "NAME", "the host name shown to the server (default: "
            + "this machine's)"));
  }

  @Override
  public Running run(Args args, Console console) throws Exception {
    if (!args.positional().isEmpty()) {
      throw new UsageException("unexpected argument '" + args.positional().get(0) + "'");
    }
    String token = args.get("token").orElse(console.env("GADGET_DRONE_TOKEN"));
    if (token == null) {
      throw new UsageException("a drone token is needed: set GADGET_DRONE_TOKEN (or --token)");
    }
    URI server = URI.create(args.get("server", "http://127.0.0.1:" + ServerCommand.DEFAULT_PORT
        + "/"));
    URI socket = socketUri(server);
    Path workspace = Path.of(args.get("workspace", DEFAULT_WORKSPACE)).toAbsolutePath()
        .normalize();
    String hostname = args.get("hostname").orElseGet(DroneCommand::localHostname);
    CompletableFuture<Integer> exit = new CompletableFuture<>();
    GadgetDrone drone = start(socket, token, workspace, hostname,
        LlmClients.withOwnKeys(console::env),
        new ConsoleDroneListener(console.out(),
            WorkOrder.ProjectRef.withoutCredentials(server.toString()),
            exit));
    console.out().println("Gadget drone " + Main.VERSION + ": workspace " + workspace
        + ", server " + WorkOrder.ProjectRef.withoutCredentials(
            server.toString()) + " (Socket.IO "
        + WorkOrder.ProjectRef.withoutCredentials(socket.toString()) + ")");
    return new Running() {
      @Override
      public CompletableFuture<Integer> exitCode() {
        return exit;
      }

      @Override
      public void close() {
        drone.close();
      }
    };
  }

  /** Starts a drone on the WebSocket transport. */
  static GadgetDrone start(URI socket, String token, Path workspace, String hostname,
      LlmClients llm, ConsoleDroneListener listener) {
    WebSocketTransportClient client = WebSocketTransportClient.builder().uri(socket).build();
    GadgetDrone drone = GadgetDrone.builder()
        .transport(client)
        .token(token)
        .workspaceDir(workspace)
        .hostname(hostname)
        .llmClients(llm)
        .listener(listener)
        .build();
    try {
      drone.start();
    } catch (WorkspaceException e) {
      client.close();
      throw new CommandException(e.getMessage(), e);
    }
    return drone;
  }

  /** Asks the server's {@code /api/config} where its Socket.IO transport listens. */
  static URI socketUri(URI server) throws InterruptedException {
    if (server.getScheme() == null || server.getHost() == null
        || !(server.getScheme().equals("http") || server.getScheme().equals("https"))) {
      throw new UsageException("--server must be an http(s) URL such as http://127.0.0.1:7700/");
    }
    URI config = server.resolve("/api/config");
    JsonNode body;
    try {
      HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
          .build().send(HttpRequest.newBuilder(config).timeout(Duration.ofSeconds(10)).GET()
              .build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new CommandException(config + " answered HTTP " + r.statusCode()
            + ": is this a Gadget server?");
      }
      body = GadgetJson.mapper().readTree(r.body());
    } catch (IOException e) {
      throw new CommandException("cannot reach the server at " + server + ": " + e, e);
    }
    int port = body.path("socketPort").asInt(-1);
    if (port <= 0) {
      throw new CommandException(config + " does not name a socketPort: is this a Gadget "
          + "server?");
    }
    String scheme = server.getScheme();
    String host = server.getHost().contains(":") ? "[" + server.getHost() + "]"
        : server.getHost();
    return URI.create(scheme + "://" + host + ":" + port);
  }

  private static String localHostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
