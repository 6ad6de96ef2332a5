package dev.gadget.examples;

import dev.gadget.core.Ids;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.server.SecretKeys;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A whole Gadget in this JVM as the jar runs it: the embedded journaled store, the server with
 * its page and REST API on free ports, and a drone on the WebSocket transport with a given
 * (scripted) LLM, working on the sample git project; plus a user with a project and a session.
 */
final class PageFixture implements AutoCloseable {
  static final ProviderConfig SCRIPTED = new ProviderConfig(LlmClients.SCRIPTED,
      "scripted:test", "sk-test-secret-should-never-show", "test-script", null);

  final Path root;
  final Stores.Opened store;
  final ServerApp app;
  final Accounts.Issued user;
  final Project project;
  final ChatSession session;
  final GadgetDrone drone;
  final ByteArrayOutputStream droneConsole = new ByteArrayOutputStream();

  PageFixture(Path root, LlmClient llm, boolean csp) throws Exception {
    this(root, llm, csp, true);
  }

  /** With {@code withProject} false the user starts with no project and no session (null). */
  PageFixture(Path root, LlmClient llm, boolean csp, boolean withProject) throws Exception {
    this(root, llm, csp, withProject, b -> b);
  }

  /** With {@code droneTweaks} applied to the drone's builder last (its tools, say). */
  PageFixture(Path root, LlmClient llm, boolean csp, boolean withProject,
      java.util.function.UnaryOperator<dev.gadget.core.drone.GadgetDrone.Builder> droneTweaks)
      throws Exception {
    this.root = root;
    Path sample = SampleProject.create(root.resolve("greeter"));
    this.store = Stores.embedded(root.resolve("data"));
    ServerApp started = null;
    GadgetDrone d = null;
    try {
      started = ServerApp.builder().store(store.store()).provider(SCRIPTED).port(0)
          .contentSecurityPolicy(csp).secretKeys(SecretKeys.of(randomKey()))
          // the tests' providers are HTTP servers on 127.0.0.1
          .serverTweaks(b -> b.cancelTimeout(Duration.ofSeconds(3))
              .providerHosts(dev.gadget.core.server.ProviderHosts.allowPrivate())).start();
      this.user = Accounts.create(store.store(), "tester");
      Instant now = Instant.now();
      this.project = withProject ? new Project(Ids.next(), user.user().id(), "Greeter",
          "greeter", sample.toString(), now) : null;
      this.session = withProject ? new ChatSession(Ids.next(), user.user().id(), project.id(),
          "Browser test", null, now) : null;
      if (withProject) {
        store.store().createProject(project);
        store.store().createSession(session);
      }
      d = DroneCommand.start(started.socketUri(), user.droneToken(), root.resolve("workspace"),
          "test-drone", new LlmClients(p -> llm), new ConsoleDroneListener(
              new PrintStream(droneConsole, true, StandardCharsets.UTF_8), "test",
              new CompletableFuture<>()), droneTweaks);
    } catch (Exception | Error e) {
      if (d != null) {
        d.close();
      }
      if (started != null) {
        started.close();
      }
      store.close();
      throw e;
    }
    this.app = started;
    this.drone = d;
    await("the drone to register", () -> !store.store().listDrones(user.user().id()).isEmpty()
        && droneConsole.toString(StandardCharsets.UTF_8).contains("connected"));
  }

  private static byte[] randomKey() {
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    return key;
  }

  /** The page's URL that signs the user in. */
  String signInUrl() {
    return app.pageUrl() + "#token=" + user.pageToken();
  }

  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  @Override
  public void close() {
    try {
      drone.close();
    } finally {
      try {
        app.close();
      } finally {
        store.close();
      }
    }
  }
}
