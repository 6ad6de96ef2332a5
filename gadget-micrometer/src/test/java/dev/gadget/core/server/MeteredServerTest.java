package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.micrometer.GadgetMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server with {@link GadgetMetrics#serverListener()}, a real drone and a page on the in-memory
 * transport (gadget-core's {@link RuntimeFixture}, hence this package): the gauges follow the
 * connections and the live turn.
 */
class MeteredServerTest {
  @TempDir Path tmp;
  RuntimeFixture fx;
  SimpleMeterRegistry registry = new SimpleMeterRegistry();
  GadgetMetrics metrics = GadgetMetrics.of(registry);

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  private double gauge(String name, String... tags) {
    return registry.get(name).tags(tags).gauge().value();
  }

  private double connections(String kind) {
    return gauge(GadgetMetrics.SERVER_CONNECTIONS, GadgetMetrics.CONNECTION_KIND, kind);
  }

  private double liveTurns() {
    return gauge(GadgetMetrics.SERVER_TURNS_ACTIVE);
  }

  @Test
  void gaugesFollowConnectionsAndTheLiveTurnAndTheTurnIsTimed() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b.listener(metrics.serverListener()));
    Person ada = fx.person("ada");
    CountDownLatch release = new CountDownLatch(1);
    ScriptedLlmClient llm = ScriptedLlmClient.builder().script(request -> {
      try {
        release.await(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return ScriptedLlmClient.reply().text("Done.").build();
    }).build();
    assertThat(liveTurns()).isZero();
    assertThat(connections("page")).isZero();
    assertThat(connections("drone")).isZero();

    GadgetDrone drone = fx.drone(ada, tmp.resolve("ws"), llm);
    await("drone connected", () -> connections("drone") == 1);
    Page page = fx.page(ada.pageToken()).connected();
    await("page connected", () -> connections("page") == 1);
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String session = fx.watchedSession(page);
    String turnId = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "hello")).get("turnId").asText();

    await("the turn is live", () -> liveTurns() == 1);
    release.countDown();
    assertThat(page.completion(turnId).get("status").asText()).isEqualTo("finished");
    await("no live turn", () -> liveTurns() == 0);
    assertThat(registry.get(GadgetMetrics.SERVER_TURN_DURATION)
        .tag(GadgetMetrics.TURN_STATUS, "finished").timer().count()).isEqualTo(1);

    page.close();
    await("page gone", () -> connections("page") == 0);
    drone.close();
    await("drone gone", () -> connections("drone") == 0);
  }

  @Test
  void aListenerThatThrowsLeavesTheServerServing() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b.listener(new ServerListener() {
      @Override
      public void onConnectionOpened(ConnectionKind kind) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void onTurnStarted(dev.gadget.core.model.ChatTurn turn) {
        throw new IllegalStateException("listener bug");
      }
    }));
    Person ada = fx.person("ada");
    fx.drone(ada, tmp.resolve("ws"),
        ScriptedLlmClient.of(ScriptedLlmClient.reply().text("Still here.").build()));
    Page page = fx.page(ada.pageToken()).connected();
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String session = fx.watchedSession(page);
    String turnId = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "hello")).get("turnId").asText();

    assertThat(page.completion(turnId).get("status").asText()).isEqualTo("finished");
  }
}
