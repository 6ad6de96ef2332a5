package dev.gadget.examples;

import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.store.Tokens;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's commands as a person runs them, in this JVM, on free ports and temp dirs. */
class CommandsTest {
  @TempDir Path tmp;
  final List<Running> running = new ArrayList<>();
  final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stopAll() {
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  /** What a command printed. */
  static final class Out {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    Console console(Map<String, String> env) {
      return new Console(new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8), env);
    }

    String out() {
      return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
      return err.toString(StandardCharsets.UTF_8);
    }
  }

  Running start(Command command, Out out, Map<String, String> env, String... argv)
      throws Exception {
    Running r = command.run(Args.parse(command.options(), List.of(argv)), out.console(env));
    running.add(r);
    return r;
  }

  static String find(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as("/%s/ in:%n%s", regex, text).isTrue();
    return m.group(1);
  }

  HttpResponse<String> get(String url, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  // ------------------------------------------------------------------ help and mistakes

  @Test
  void everyCommandHasHelp() {
    Out o = new Out();
    assertThat(Main.run(List.of("--help"), o.console(Map.of()), false)).isZero();
    assertThat(o.out()).contains("demo", "server", "drone", "user", "acp",
        "Usage: java -jar gadget.jar");
    for (String c : List.of("demo", "server", "drone", "user", "acp")) {
      Out h = new Out();
      assertThat(Main.run(List.of(c, "--help"), h.console(Map.of()), false)).as(c).isZero();
      assertThat(h.out()).as(c).contains("Usage: ", "Options:", "--help");
    }
    Out s = new Out();
    Main.run(List.of("server", "--help"), s.console(Map.of()), false);
    assertThat(s.out()).contains("--port PORT", "--mongo URI", "--data-dir DIR", "--llm SDK",
        "--drone-grace-period SECONDS", "--silence-timeout SECONDS", "--cancel-timeout SECONDS");
  }

  @Test
  void aClusterNeedsTheSharedStoreAndARedisUriAndSaysSo() {
    Out alone = new Out();
    assertThat(Main.run(List.of("server", "--cluster", "redis://127.0.0.1:1"),
        alone.console(Map.of()), false)).isEqualTo(2);
    assertThat(alone.err()).contains("--cluster needs --mongo: the nodes of a cluster share one "
        + "store, and the embedded store belongs to one process");
    Out notRedis = new Out();
    assertThat(Main.run(List.of("server", "--mongo", "mongodb://127.0.0.1:1", "--cluster",
        "http://127.0.0.1:1"), notRedis.console(Map.of()), false)).isEqualTo(2);
    assertThat(notRedis.err()).contains("--cluster takes a Redis URI, such as "
        + "redis://127.0.0.1:6379");
    Out nodeAlone = new Out();
    assertThat(Main.run(List.of("server", "--node-id", "a"), nodeAlone.console(Map.of()),
        false)).isEqualTo(2);
    assertThat(nodeAlone.err()).contains("--node-id names this node in a cluster: it goes with "
        + "--cluster");
    Out drone = new Out();
    assertThat(Main.run(List.of("drone", "--token", "gdt_x", "--server",
        "http://127.0.0.1:1/,ftp://x"), drone.console(Map.of()), false)).isEqualTo(2);
    assertThat(drone.err()).contains("--server takes the server's page URL");
  }

  @Test
  void sandboxAndApprovalPoliciesAreCheckedOnTheCommandLine() {
    Out d = new Out();
    assertThat(Main.run(List.of("drone", "--token", "gdt_x", "--sandbox", "open"),
        d.console(Map.of()), false)).isEqualTo(2);
    assertThat(d.err()).contains("no sandbox policy \"open\"; the policies are read-only, "
        + "workspace-write and full-access");
    Out s = new Out();
    assertThat(Main.run(List.of("server", "--approval-policy", "sometimes"),
        s.console(Map.of()), false)).isEqualTo(2);
    assertThat(s.err()).contains("no approval policy \"sometimes\"; the policies are never, "
        + "commands, commands-and-writes and everything");
    Out h = new Out();
    Main.run(List.of("drone", "--help"), h.console(Map.of()), false);
    assertThat(h.out()).contains("--sandbox POLICY", "--sandbox-network");
  }

  @Test
  void theServerTakesItsDroneTimeoutsFromTheCommandLine() throws Exception {
    Out out = new Out();
    Running server = start(new ServerCommand(), out, Map.of(), "--port", "0", "--data-dir",
        tmp.resolve("data").toString(), "--llm", "scripted", "--drone-grace-period", "2.5",
        "--silence-timeout", "40", "--cancel-timeout", "3");
    assertThat(out.out()).contains(
        "Drones:    2.5 s grace period, 40 s silence timeout, 3 s cancel timeout");
    server.close();
    Out bad = new Out();
    assertThat(Main.run(List.of("server", "--cancel-timeout", "0"), bad.console(Map.of()),
        false)).isEqualTo(2);
    assertThat(bad.err()).contains(
        "--cancel-timeout must be a number of seconds above 0 and at most 86400 (a day), not '0'");
  }

  @Test
  void mistakesExitWithTwoAndSayWhy() {
    Out none = new Out();
    assertThat(Main.run(List.of(), none.console(Map.of()), false)).isEqualTo(2);
    Out unknown = new Out();
    assertThat(Main.run(List.of("serve"), unknown.console(Map.of()), false)).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown command 'serve'");
    Out option = new Out();
    assertThat(Main.run(List.of("server", "--prot", "1"), option.console(Map.of()), false))
        .isEqualTo(2);
    assertThat(option.err()).contains("gadget server: unknown option --prot",
        "java -jar gadget.jar server --help");
    Out drone = new Out();
    assertThat(Main.run(List.of("drone"), drone.console(Map.of()), false)).isEqualTo(2);
    assertThat(drone.err()).contains("GADGET_DRONE_TOKEN");
    Out user = new Out();
    assertThat(Main.run(List.of("user", "add", "bad name", "--data-dir",
        tmp.resolve("d").toString()), user.console(Map.of()), false)).isEqualTo(2);
  }

  // ------------------------------------------------------------------ user

  @Test
  void userAddAndTokenWorkOnTheDataDirectory() {
    String dir = tmp.resolve("data").toString();
    Out add = new Out();
    assertThat(Main.run(List.of("user", "add", "carol", "--data-dir", dir),
        add.console(Map.of()), false)).isZero();
    String page = find(add.out(), "Page token:  (gdt_\\S+)");
    String drone = find(add.out(), "Drone token: (gdt_\\S+)");
    Out again = new Out();
    assertThat(Main.run(List.of("user", "add", "carol", "--data-dir", dir),
        again.console(Map.of()), false)).isEqualTo(1);
    assertThat(again.err()).contains("the user 'carol' already exists");
    Out token = new Out();
    assertThat(Main.run(List.of("user", "token", "carol", "--data-dir", dir),
        token.console(Map.of()), false)).isZero();
    String newPage = find(token.out(), "Page token:  (gdt_\\S+)");
    assertThat(newPage).isNotEqualTo(page);
    Out missing = new Out();
    assertThat(Main.run(List.of("user", "token", "dave", "--data-dir", dir),
        missing.console(Map.of()), false)).isEqualTo(1);

    try (Stores.Opened store = Stores.embedded(Path.of(dir))) {
      Tokens tokens = new Tokens(store.store());
      assertThat(tokens.authenticate(page, TokenKind.USER)).isPresent();
      assertThat(tokens.authenticate(newPage, TokenKind.USER)).isPresent();
      assertThat(tokens.authenticate(drone, TokenKind.DRONE)).isPresent();
    }
  }

  // ------------------------------------------------------------------ server and drone

  @Test
  void theServerMakesAnAdminAtFirstStartOnlyAndKeepsItsData() throws Exception {
    String dir = tmp.resolve("data").toString();
    Out first = new Out();
    Running server = start(new ServerCommand(), first, Map.of(), "--port", "0", "--data-dir", dir,
        "--llm", "scripted");
    String page = find(first.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    String adminToken = find(first.out(), "Page token:  (gdt_\\S+)");
    assertThat(first.out()).contains("created the user 'admin'", "#token=" + adminToken,
        "Drone token: gdt_", "the embedded store in", "SCRIPTED replies");
    assertThat(get(page + "api/health", null).statusCode()).isEqualTo(200);

    // While it runs, 'user add' goes through its store.
    Out add = new Out();
    assertThat(Main.run(List.of("user", "add", "erin", "--data-dir", dir), add.console(Map.of()),
        false)).isZero();
    assertThat(add.out()).contains("the running server's store");
    String erin = find(add.out(), "Page token:  (gdt_\\S+)");
    assertThat(get(page + "api/me", erin).body()).contains("\"username\":\"erin\"");
    server.close();

    Out second = new Out();
    start(new ServerCommand(), second, Map.of(), "--port", "0", "--data-dir", dir, "--llm",
        "scripted");
    assertThat(second.out()).doesNotContain("created the user", "gdt_")
        .contains("Sign in with your page token");
    String page2 = find(second.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    assertThat(get(page2 + "api/me", adminToken).body()).contains("\"username\":\"admin\"");
  }

  @Test
  void aDroneConnectsWithItsTokenAndIsRefusedWithAPageToken() throws Exception {
    String dir = tmp.resolve("data").toString();
    Out s = new Out();
    start(new ServerCommand(), s, Map.of(), "--port", "0", "--data-dir", dir, "--llm", "scripted");
    String page = find(s.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    String droneToken = find(s.out(), "Drone token: (gdt_\\S+)");
    String pageToken = find(s.out(), "Page token:  (gdt_\\S+)");

    Out d = new Out();
    Running drone = start(new DroneCommand(), d, Map.of("GADGET_DRONE_TOKEN", droneToken),
        "--server", page, "--workspace", tmp.resolve("ws").toString(), "--hostname", "box");
    await("the drone to connect", () -> d.out().contains("[drone] connected to " + page));
    // the server's acceptance of the registration comes after the connection
    await("the drone to be registered", () -> d.out().contains("available: waiting for work"));
    assertThat(d.out()).contains("workspace " + tmp.resolve("ws"))
        .doesNotContain(droneToken);
    assertThat(Files.exists(tmp.resolve("ws/.gadget/workspace.json"))).isTrue();
    assertThat(drone.exitCode()).isNotDone();

    Out bad = new Out();
    Running refused = start(new DroneCommand(), bad, Map.of("GADGET_DRONE_TOKEN", pageToken),
        "--server", page, "--workspace", tmp.resolve("ws2").toString());
    assertThat(refused.exitCode().get(20, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(bad.out()).contains("refused this drone: this is a user token");
  }

  @Test
  void aDroneWaitsForAServerThatIsNotThereYetSayingSoAndTakesHostColonPort() throws Exception {
    String dir = tmp.resolve("data").toString();
    Out first = new Out();
    Running server = start(new ServerCommand(), first, Map.of(), "--port", "0", "--data-dir",
        dir, "--llm", "scripted");
    String droneToken = find(first.out(), "Drone token: (gdt_\\S+)");
    server.close();
    int port = URI.create(ProvidersTest.nothingListening()).getPort();

    Out d = new Out();
    Running drone = start(new DroneCommand(), d, Map.of("GADGET_DRONE_TOKEN", droneToken),
        "--server", "127.0.0.1:" + port, "--workspace", tmp.resolve("ws").toString());
    await("the drone to say it waits", () -> d.out().contains(
        "[drone] cannot reach the server at http://127.0.0.1:" + port + "/ (connection refused);"
            + " trying again in 1 s. Ctrl-C stops."));
    assertThat(drone.exitCode()).isNotDone();
    assertThat(d.err()).isEmpty();

    Out second = new Out();
    start(new ServerCommand(), second, Map.of(), "--port", String.valueOf(port),
        "--socket-port", "0", "--data-dir", dir, "--llm", "scripted");
    await("the drone to connect", () -> d.out().contains(
        "[drone] connected to http://127.0.0.1:" + port + "/"));
    assertThat(drone.exitCode()).isNotDone();
  }

  @Test
  void aServerAddressThatIsNoUrlExitsWithTwoAndSaysWhatIsExpected() {
    for (String bad : List.of("http://[oops", "ftp://127.0.0.1:7700/", "127.0.0.1:notaport",
        "http://127.0.0.1:7700/?x=1")) {
      Out o = new Out();
      assertThat(Main.run(List.of("drone", "--server", bad, "--workspace",
          tmp.resolve("ws").toString()), o.console(Map.of("GADGET_DRONE_TOKEN", "gdt_x")), false))
          .as(bad).isEqualTo(2);
      assertThat(o.err()).as(bad).contains("gadget drone: --server takes the server's page URL, "
          + "such as http://127.0.0.1:7700/, or host:port (meaning http://host:port/); not '"
          + bad + "'").doesNotContain("Exception");
    }
    assertThat(tmp.resolve("ws")).as("nothing is created").doesNotExist();
    Out help = new Out();
    Main.run(List.of("drone", "--help"), help.console(Map.of()), false);
    assertThat(help.out()).contains("--server URL", "or host:port meaning http://host:port/");
  }

  @Test
  void userCommandsCheckTheNameBeforeCreatingAnything() {
    Path dir = tmp.resolve("data");
    Out add = new Out();
    assertThat(Main.run(List.of("user", "add", "bad name!", "--data-dir", dir.toString()),
        add.console(Map.of()), false)).isEqualTo(2);
    assertThat(add.err()).contains("gadget user: 'bad name!' is not a user name: a user name is "
        + "1 to 64 letters, digits");
    assertThat(dir).as("no data directory is left behind").doesNotExist();
    Out token = new Out();
    assertThat(Main.run(List.of("user", "token", "alice", "--data-dir", dir.toString()),
        token.console(Map.of()), false)).isEqualTo(1);
    assertThat(token.err()).contains("there is no user 'alice': there is no store in " + dir);
    assertThat(dir).doesNotExist();
  }

  // ------------------------------------------------------------------ demo

  @Test
  void theDemoOnHostAnyIsReachedOnOneAddressOfThisMachineThatIsNotLoopback() throws Exception {
    java.net.InetAddress outside = java.util.Collections.list(
            java.net.NetworkInterface.getNetworkInterfaces()).stream()
        .flatMap(i -> java.util.Collections.list(i.getInetAddresses()).stream())
        .filter(a -> a instanceof java.net.Inet4Address && !a.isLoopbackAddress())
        .findFirst().orElseThrow(() -> new AssertionError("this machine has no IPv4 address "
            + "but loopback: the test needs one to stand for another machine's view"));
    Out o = new Out();
    start(new DemoCommand(), o, Map.of(), "--host", "0.0.0.0", "--port", "0", "--llm",
        "scripted");
    String url = find(o.out(), "Open:\\s+(http://127\\.0\\.0\\.1:\\d+/#token=gdt_\\S+)");
    int port = URI.create(url).getPort();
    String there = "http://" + outside.getHostAddress() + ":" + port + "/";
    HttpResponse<String> config = get(there + "api/config", null);
    assertThat(config.statusCode()).isEqualTo(200);
    assertThat(GadgetJson.mapper().readTree(config.body()).get("socketPort").asInt())
        .as("Socket.IO on the same port").isEqualTo(port);
    assertThat(get(there, null).body()).contains("<title>Gadget</title>");
    String token = url.substring(url.indexOf("#token=") + 7);
    try (WebSocketTransportClient client = WebSocketTransportClient.builder()
        .uri(URI.create("http://" + outside.getHostAddress() + ":" + port)).build()) {
      Connection c = client.connect(Protocol.PAGE_NAMESPACE,
          () -> GadgetJson.mapper().createObjectNode().put("token", token),
          new TransportClient.ClientListener() {});
      JsonNode sessions = c.emitWithAck(Protocol.LIST_SESSIONS, Protocol.args(Map.of()),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0).get("sessions");
      assertThat(sessions).as("Socket.IO on that address and port").hasSize(1);
    }
  }

  @Test
  void theDemoRunsAPromptThroughItsDroneIntoStoredBlocks() throws Exception {
    Out o = new Out();
    Running demo = start(new DemoCommand(), o, Map.of(), "--port", "0", "--llm", "scripted");
    String url = find(o.out(), "Open:\\s+(http://127\\.0\\.0\\.1:\\d+/#token=gdt_\\S+)");
    String token = url.substring(url.indexOf("#token=") + 7);
    String page = url.substring(0, url.indexOf('#'));
    Path root = Path.of(find(o.out(), "Files:\\s+(\\S+)"));
    assertThat(o.out()).contains("SCRIPTED replies", "canned");
    assertThat(Files.isDirectory(root.resolve("greeter/.git"))).isTrue();
    await("the demo's drone", () -> o.out().contains("[drone] connected"));

    int socketPort = GadgetJson.mapper().readTree(get(page + "api/config", null).body())
        .get("socketPort").asInt();
    List<String> events = new CopyOnWriteArrayList<>();
    CompletableFuture<JsonNode> done = new CompletableFuture<>();
    try (WebSocketTransportClient client = WebSocketTransportClient.builder()
        .uri(URI.create("http://127.0.0.1:" + socketPort)).build()) {
      Connection c = client.connect(Protocol.PAGE_NAMESPACE,
          () -> GadgetJson.mapper().createObjectNode().put("token", token),
          new TransportClient.ClientListener() {});
      for (String e : List.of(Protocol.THINKING, Protocol.RESPONSE, Protocol.TOOL_CALL)) {
        c.on(e, (args, ack) -> events.add(e));
      }
      c.on(Protocol.WORK_ORDER_COMPLETE, (args, ack) -> done.complete(args.get(0)));
      JsonNode sessions = c.emitWithAck(Protocol.LIST_SESSIONS, Protocol.args(Map.of()),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0).get("sessions");
      String sessionId = sessions.get(0).get("_id").asText();
      c.emitWithAck(Protocol.WATCH_SESSION, Protocol.args(Map.of("sessionId", sessionId)),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
      JsonNode submitted = c.emitWithAck(Protocol.SUBMIT_PROMPT, Protocol.args(
              Map.of("sessionId", sessionId, "prompt", "What is this project about?")),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0);
      assertThat(submitted.has("turnId")).as("%s", submitted).isTrue();
      JsonNode end = done.get(30, TimeUnit.SECONDS);
      assertThat(end.get("status").asText()).isEqualTo("finished");
      assertThat(events).contains(Protocol.THINKING, Protocol.RESPONSE, Protocol.TOOL_CALL);

      JsonNode turns = GadgetJson.mapper().readTree(
          get(page + "api/sessions/" + sessionId + "/turns", token).body()).get("turns");
      ChatTurn turn = GadgetJson.mapper().treeToValue(turns.get(0), ChatTurn.class);
      assertThat(turn.blocks()).filteredOn(b -> b instanceof TurnBlock.Tool)
          .extracting(b -> ((TurnBlock.Tool) b).content().name())
          .containsExactly("list_dir", "read_file");
      TurnBlock last = turn.blocks().get(turn.blocks().size() - 1);
      assertThat(((TurnBlock.Responding) last).content()).contains("Scripted reply", "Greeter");
    }
    demo.close();
    assertThat(Files.exists(root)).as("the demo's files are removed").isFalse();
  }

  // ------------------------------------------------------------------ metrics

  HttpResponse<String> send(String method, String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The value of the one sample whose name is {@code name} and whose labels include these. */
  private static double sample(String body, String name, String... labels) {
    List<Double> found = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$")
        .matcher(body);
    while (m.find()) {
      String set = m.group(1) == null ? "" : m.group(1);
      boolean all = true;
      for (int i = 0; i + 1 < labels.length; i += 2) {
        all &= set.contains(labels[i] + "=\"" + labels[i + 1] + "\"");
      }
      if (all) {
        found.add(Double.parseDouble(m.group(2)));
      }
    }
    assertThat(found).as("one sample %s %s in:%n%s", name, List.of(labels), body).hasSize(1);
    return found.get(0);
  }

  /** {@code --metrics}: GET /metrics over real HTTP, after a real turn through the demo. */
  @Test
  void theDemoServesItsMetersInPrometheusFormatAfterATurn() throws Exception {
    Out o = new Out();
    start(new DemoCommand(), o, Map.of(), "--port", "0", "--llm", "scripted", "--metrics");
    String url = find(o.out(), "Open:\\s+(http://127\\.0\\.0\\.1:\\d+/#token=gdt_\\S+)");
    String token = url.substring(url.indexOf("#token=") + 7);
    String page = url.substring(0, url.indexOf('#'));
    assertThat(find(o.out(), "Metrics:\\s+(\\S+)")).isEqualTo(page + "metrics");
    await("the demo's drone", () -> o.out().contains("[drone] connected"));
    int socketPort = GadgetJson.mapper().readTree(get(page + "api/config", null).body())
        .get("socketPort").asInt();

    try (WebSocketTransportClient client = WebSocketTransportClient.builder()
        .uri(URI.create("http://127.0.0.1:" + socketPort)).build()) {
      CompletableFuture<JsonNode> done = new CompletableFuture<>();
      Connection c = client.connect(Protocol.PAGE_NAMESPACE,
          () -> GadgetJson.mapper().createObjectNode().put("token", token),
          new TransportClient.ClientListener() {});
      c.on(Protocol.WORK_ORDER_COMPLETE, (args, ack) -> done.complete(args.get(0)));
      String sessionId = c.emitWithAck(Protocol.LIST_SESSIONS, Protocol.args(Map.of()),
              Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0).get("sessions").get(0)
          .get("_id").asText();
      c.emitWithAck(Protocol.WATCH_SESSION, Protocol.args(Map.of("sessionId", sessionId)),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
      c.emitWithAck(Protocol.SUBMIT_PROMPT, Protocol.args(
              Map.of("sessionId", sessionId, "prompt", "What is this project about?")),
          Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
      assertThat(done.get(30, TimeUnit.SECONDS).get("status").asText()).isEqualTo("finished");

      HttpResponse<String> r = send("GET", page + "metrics");

      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).hasValue(
          "text/plain; version=0.0.4; charset=utf-8");
      String body = r.body();
      // The demo's script: list_dir, then read_file, then the answer: three model calls.
      assertThat(sample(body, "gen_ai_client_operation_duration_seconds_count",
          "gen_ai_operation_name", "chat", "gen_ai_provider_name", "scripted",
          "error_type", "none")).isEqualTo(3);
      assertThat(sample(body, "gen_ai_client_token_usage_tokens_count",
          "gen_ai_token_type", "output")).isEqualTo(3);
      assertThat(sample(body, "gen_ai_client_token_usage_tokens_sum",
          "gen_ai_token_type", "output")).isPositive();
      assertThat(sample(body, "gadget_tool_duration_seconds_count",
          "gen_ai_tool_name", "list_dir", "gadget_tool_outcome", "success")).isEqualTo(1);
      assertThat(sample(body, "gadget_tool_duration_seconds_count",
          "gen_ai_tool_name", "read_file", "gadget_tool_outcome", "success")).isEqualTo(1);
      assertThat(sample(body, "gadget_server_turn_duration_seconds_count",
          "gadget_turn_status", "finished")).isEqualTo(1);
      assertThat(sample(body, "gadget_server_turns_active")).isZero();
      assertThat(sample(body, "gadget_server_connections",
          "gadget_connection_kind", "page")).isEqualTo(1);
      assertThat(sample(body, "gadget_server_connections",
          "gadget_connection_kind", "drone")).isEqualTo(1);
      assertThat(body).doesNotContain("sk-test", "What is this project about?");
    }
  }

  @Test
  void theServerServesMetricsOnlyWhenAskedAndOnlyToGet() throws Exception {
    Out plain = new Out();
    start(new ServerCommand(), plain, Map.of(), "--port", "0", "--data-dir", tmp.resolve("a").toString(),
        "--llm", "scripted");
    String page = find(plain.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    assertThat(plain.out()).doesNotContain("Metrics:");
    assertThat(send("GET", page + "metrics").statusCode()).isEqualTo(404);

    Out metered = new Out();
    start(new ServerCommand(), metered, Map.of(), "--port", "0", "--data-dir",
        tmp.resolve("b").toString(), "--llm", "scripted", "--metrics");
    String meteredPage = find(metered.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    assertThat(find(metered.out(), "Metrics:\\s+(\\S+)")).isEqualTo(meteredPage + "metrics");
    HttpResponse<String> get = send("GET", meteredPage + "metrics");
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(sample(get.body(), "gadget_server_turns_active")).isZero();
    assertThat(send("POST", meteredPage + "metrics").statusCode()).isEqualTo(405);
    assertThat(send("GET", meteredPage + "metrics/x").statusCode()).isEqualTo(404);
    assertThat(send("GET", meteredPage + "api/health").statusCode()).isEqualTo(200);
  }
}
