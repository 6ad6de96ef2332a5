package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.Ids;
import dev.gadget.core.drone.DroneListener;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.OllamaClient;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.User;
import dev.gadget.core.server.GadgetServer;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.store.Tokens;
import dev.gadget.transport.ws.WebSocketTransportClient;
import dev.gadget.transport.ws.WebSocketTransportServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's "Embedding the SDK" server-and-drone example, compiled and run; the code between the
 * markers must be the README's, character for character.
 */
class ReadmeServerExampleTest {
  @TempDir Path tmp;

  @Test
  void theExampleRunsAndTheDroneConnects() throws Exception {
    Path workspace = tmp.resolve("gadget-workspace");
    GadgetServer server = null;
    GadgetDrone drone = null;
    try {
      Object[] both = example(workspace);
      server = (GadgetServer) both[0];
      drone = (GadgetDrone) both[1];
      ChatStore store = server.store();
      String userId = store.findUserByName("me").orElseThrow().id();
      PageFixture.await("the drone to register", () -> store.listDrones(userId).stream()
          .anyMatch(d -> d.status() == DroneStatus.AVAILABLE));
      assertThat(Files.exists(workspace.resolve(".gadget/workspace.json"))).isTrue();
    } finally {
      if (drone != null) {
        drone.close();
      }
      if (server != null) {
        server.close();
      }
    }
  }

  static Object[] example(Path workspace) {
    // README-BEGIN
    ChatStore store = new InMemoryChatStore();          // or MongoChatStore.builder()...build()
    User me = new User(Ids.next(), "me", "Me", Instant.now());
    store.createUser(me);
    WebSocketTransportServer sockets = WebSocketTransportServer.builder()
        .port(0)                                         // 127.0.0.1, a free port: sockets.port()
        .build();
    GadgetServer server = GadgetServer.builder()
        .store(store)
        .transport(sockets)
        .provider(new ProviderConfig("ollama", "http://127.0.0.1:11434", null, "qwen3", null))
        .build();
    server.start();

    String droneToken = new Tokens(store).issue(me.id(), TokenKind.DRONE, "my drone").token();
    GadgetDrone drone = GadgetDrone.builder()              // usually in another process
        .transport(WebSocketTransportClient.builder().uri(sockets.uri()).build())
        .token(droneToken)
        .workspaceDir(workspace)
        .llmClients(p -> OllamaClient.builder().baseUrl(p.baseUrl()).build())
        .listener(new DroneListener() {
          @Override public void onStatus(DroneStatus status, String turnId) {
            System.out.println("drone: " + status);
          }
        })
        .build();
    drone.start();
    // README-END
    return new Object[] {server, drone};
  }

  @Test
  void theReadmeShowsThisExample() throws Exception {
    String source = Files.readString(
        Path.of("src/test/java/dev/gadget/examples/ReadmeServerExampleTest.java"));
    String body = source.substring(source.indexOf("// README-BEGIN\n") + 16,
        source.indexOf("    // README-END"));
    String example = body.lines().map(l -> l.startsWith("    ") ? l.substring(4) : l)
        .collect(Collectors.joining("\n", "", "\n"));
    String readme = Files.readString(Path.of("../README.md"));
    String marker = "<!-- The example below is ReadmeServerExampleTest's; keep them identical. -->\n"
        + "```java\n";
    assertThat(readme).contains(marker);
    int start = readme.indexOf(marker) + marker.length();
    assertThat(readme.substring(start, readme.indexOf("```\n", start))).isEqualTo(example);
  }
}
