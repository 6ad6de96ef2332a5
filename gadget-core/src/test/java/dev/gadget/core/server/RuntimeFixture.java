package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.agent.TestRepo;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.User;
import dev.gadget.core.protocol.EventTurns;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.store.Tokens;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.core.transport.TransportException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.concurrent.locks.LockSupport;

/** Real threads, the in-memory transport, real git: the pieces the runtime tests assemble. */
final class RuntimeFixture implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(20);
  static final String API_KEY = "sk-test-secret-0123456789";
  static final ProviderConfig PROVIDER =
      new ProviderConfig("scripted", "http://127.0.0.1:1", API_KEY, "test-model", null);

  final Path root;
  final InMemoryTransport transport = new InMemoryTransport();
  final ChatStore store;
  final Tokens tokens;
  final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
  final String gitUrl;

  RuntimeFixture(Path root, ChatStore store) throws Exception {
    this.root = root;
    this.store = store;
    this.tokens = new Tokens(store);
    this.gitUrl = sampleRepository(root.resolve("origin.git"));
  }

  RuntimeFixture(Path root) throws Exception {
    this(root, new InMemoryChatStore());
  }

  /** A bare repository with one commit holding README.md, as a file URL. */
  static String sampleRepository(Path bare) throws Exception {
    Path work = bare.resolveSibling("seed-work");
    Files.createDirectories(work);
    git(work, "init", "-q", "-b", "main");
    Files.writeString(work.resolve("README.md"), "hello from the sample project\n");
    git(work, "add", "README.md");
    git(work, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "-m", "init");
    git(bare.getParent(), "clone", "-q", "--bare", work.toString(), bare.toString());
    return bare.toUri().toString();
  }

  /** Runs git in {@code dir}; its output. */
  static String git(Path dir, String... args) throws Exception {
    return TestRepo.gitIn(dir, args);
  }

  GadgetServer server(Function<GadgetServer.Builder, GadgetServer.Builder> tweak) {
    GadgetServer s = tweak.apply(GadgetServer.builder().store(store)
        .transport(transport.server()).provider(PROVIDER)
        .droneGracePeriod(Duration.ofSeconds(5))
        .silenceTimeout(Duration.ofSeconds(10))
        .cancelTimeout(Duration.ofSeconds(5))
        .ackTimeout(Duration.ofSeconds(5))).build();
    s.start();
    closeables.add(s);
    return s;
  }

  /** A user with a page token and a drone token. */
  Person person(String name) {
    User u = new User(Ids.next(), name, name, Instant.now());
    store.createUser(u);
    return new Person(u, tokens.issue(u.id(), TokenKind.USER, "page").token(),
        tokens.issue(u.id(), TokenKind.DRONE, "drone").token());
  }

  record Person(User user, String pageToken, String droneToken) {}

  /**
   * A raw drone of {@code owner} (workspace ws-1) on {@code client}, running {@code activeTurn}
   * (or none): it accepts every work order, whose turn goes to {@code orders}, and puts each
   * turn the server asks it to resume in {@code resumes}.
   */
  static Connection rawDrone(TransportClient client, Person owner, String activeTurn,
      BlockingQueue<String> orders, BlockingQueue<String> resumes) {
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", owner.droneToken())
        .put("workspaceId", "ws-1").put("hostname", "h").put("workspaceDir", "/nowhere");
    if (activeTurn != null) {
      auth.put("activeTurnId", activeTurn);
    }
    return client.connect(Protocol.DRONE_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {}, c -> {
          c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
            orders.add(args.get(0).get("workOrder").get("chatTurn").get("_id").asText());
            ack.send(Protocol.args(new dev.gadget.core.protocol.Payloads.WorkOrderAck(true,
                null)));
          });
          c.on(Protocol.RESUME_STREAM, (args, ack) -> resumes.add(args.get(0).get("turnId")
              .asText()));
        });
  }

  /** A new session on the sample project, made through {@code page}, which watches it. */
  String watchedSession(Page page) throws Exception {
    JsonNode project = sampleProject(page);
    String session = page.request(Protocol.CREATE_SESSION,
        Map.of("projectId", project.get("_id").asText(), "name", "Chat")).get("session")
        .get("_id").asText();
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    return session;
  }

  /** The page's user's project "Sample" on the sample repository, made the first time. */
  JsonNode sampleProject(Page page) throws Exception {
    for (JsonNode p : page.request(Protocol.LIST_PROJECTS, Map.of()).get("projects")) {
      if (p.get("name").asText().equals("Sample")) {
        return p;
      }
    }
    return page.request(Protocol.CREATE_PROJECT,
        Map.of("name", "Sample", "slug", "sample", "gitUrl", gitUrl)).get("project");
  }

  GadgetDrone drone(Person owner, Path workspace, LlmClient llm) {
    return drone(owner, workspace, llm, b -> b);
  }

  /** A drone with {@code tweak} applied to its builder last. */
  GadgetDrone drone(Person owner, Path workspace, LlmClient llm,
      java.util.function.UnaryOperator<GadgetDrone.Builder> tweak) {
    GadgetDrone d = tweak.apply(GadgetDrone.builder()
        .transport(transport.client())
        .token(owner.droneToken())
        .workspaceDir(workspace)
        .hostname("test-host")
        .llmClients(p -> llm)
        .heartbeatInterval(Duration.ofMillis(100))
        .ackTimeout(Duration.ofSeconds(2)))
        .build();
    d.start();
    closeables.add(d);
    return d;
  }

  /**
   * A bare test server on {@code transport} in place of Gadget's: it takes any drone, hands each
   * connection to {@code onConnect} (to listen to it) and queues it; closed with the fixture.
   */
  BlockingQueue<Connection> bareServer(InMemoryTransport transport,
      java.util.function.Consumer<Connection> onConnect) {
    BlockingQueue<Connection> drones = new LinkedBlockingQueue<>();
    dev.gadget.core.transport.TransportServer server = transport.server();
    server.start(new dev.gadget.core.transport.ConnectionAcceptor() {
      @Override
      public Object authenticate(String namespace, JsonNode auth) {
        return "drone";
      }

      @Override
      public void onConnect(Connection connection, Object principal) {
        onConnect.accept(connection);
        drones.add(connection);
      }

      @Override
      public void onDisconnect(Connection connection, Object principal, String reason) {}
    });
    closeables.add(server);
    return drones;
  }

  Page page(String token) {
    Page p = new Page(transport.client(), token);
    closeables.add(p);
    return p;
  }

  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** Every file under {@code dir}'s {@code .gadget/}, as text. */
  static String gadgetFiles(Path workspace) throws IOException {
    StringBuilder sb = new StringBuilder();
    Path dir = workspace.resolve(".gadget");
    if (Files.isDirectory(dir)) {
      try (var files = Files.walk(dir)) {
        for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
          sb.append(Files.readString(f));
        }
      }
    }
    return sb.toString();
  }

  @Override
  public void close() {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        // best effort
      }
    }
  }

  /** A page: the stock client's role, on the in-memory transport. */
  static final class Page implements AutoCloseable {
    final TransportClient client;
    final Connection connection;
    final BlockingQueue<String> lifecycle = new LinkedBlockingQueue<>();
    final List<Event> events = new CopyOnWriteArrayList<>();
    volatile TransportException refused;

    record Event(String name, JsonNode payload) {}

    Page(TransportClient client, String token) {
      this.client = client;
      ObjectNode auth = GadgetJson.mapper().createObjectNode();
      if (token != null) {
        auth.put("token", token);
      }
      this.connection = client.connect(Protocol.PAGE_NAMESPACE, () -> auth,
          new TransportClient.ClientListener() {
            @Override
            public void onConnect(Connection c) {
              lifecycle.add("connect");
            }

            @Override
            public void onConnectError(Connection c, TransportException error) {
              refused = error;
              lifecycle.add("refused");
            }
          });
      for (String e : List.of(Protocol.TURN_STARTED, Protocol.BLOCKS_SUPERSEDED,
          Protocol.THINKING, Protocol.RESPONSE,
          Protocol.TOOL_CALL, Protocol.TOOL_STARTED, Protocol.TOOL_OUTPUT,
          Protocol.WORK_ORDER_COMPLETE, Protocol.DRONE_STATUS, Protocol.TURN_CHANGES,
          Protocol.COMPACTION, Protocol.WORKSPACE_MODE, Protocol.TURN_RECOVERED,
          Protocol.TURN_STATS, Protocol.APPROVAL_PENDING, Protocol.APPROVAL_DECIDED,
          Protocol.SESSION_DELETED, Protocol.TURN_RESUMED)) {
        connection.on(e, (args, ack) -> events.add(new Event(e, args.get(0))));
      }
    }

    Page connected() throws InterruptedException {
      String first = lifecycle.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(first).as("page connection").isEqualTo("connect");
      return this;
    }

    JsonNode request(String event, Object payload) throws Exception {
      return connection.emitWithAck(event, Protocol.args(payload), WAIT)
          .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).get(0);
    }

    JsonNode request(String event, Map<String, ?> payload) throws Exception {
      return request(event, (Object) payload);
    }

    /** Submits {@code prompt} in {@code sessionId}; the new turn's id (an error fails). */
    String submit(String sessionId, String prompt) throws Exception {
      JsonNode reply = request(Protocol.SUBMIT_PROMPT,
          Map.of("sessionId", sessionId, "prompt", prompt));
      assertThat(reply.has("error")).as("submit error: %s", reply).isFalse();
      return reply.get("turnId").asText();
    }

    List<Event> eventsOf(String turnId) {
      List<Event> out = new ArrayList<>();
      for (Event e : events) {
        if (turnId.equals(EventTurns.turnId(e.name(), e.payload()))) {
          out.add(e);
        }
      }
      return out;
    }

    /** How many {@code event}s of the turn this page got. */
    long count(String turnId, String event) {
      return eventsOf(turnId).stream().filter(e -> e.name().equals(event)).count();
    }

    /** The seqs of the turn's {@code event}s this page got, in the order it got them. */
    List<Long> seqs(String turnId, String event) {
      return eventsOf(turnId).stream().filter(e -> e.name().equals(event))
          .map(e -> e.payload().get("seq").asLong()).toList();
    }

    JsonNode completion(String turnId) {
      await("workOrderComplete for " + turnId, () -> eventsOf(turnId).stream()
          .anyMatch(e -> e.name().equals(Protocol.WORK_ORDER_COMPLETE)));
      return eventsOf(turnId).stream()
          .filter(e -> e.name().equals(Protocol.WORK_ORDER_COMPLETE))
          .findFirst().orElseThrow().payload();
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
