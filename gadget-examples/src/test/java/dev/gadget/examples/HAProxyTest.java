package dev.gadget.examples;

import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/haproxy.cfg, the load balancer example of docs/CLUSTER.md, as it is: Debian's haproxy
 * (test.sh installs it) started with that very file in front of three {@code gadget server
 * --cluster} processes on one Redis and one store; a real drone that knows only the load
 * balancer's URL, a page on the stock socket.io-client and a page that sends the prompt, all
 * through it. The turn runs and reaches the stock page whole and once; a long-polling request
 * is refused in words.
 */
class HAProxyTest extends ClusterProcessFixture {
  private static final Path CONFIG = Path.of("../docs/haproxy.cfg").toAbsolutePath().normalize();

  @Test
  void aStockPageAndADroneWorkThroughTheExampleConfig() throws Exception {
    seed();
    int[] ports = {freePort(), freePort(), freePort()};
    node("a", ports[0]);
    node("b", ports[1]);
    node("c", ports[2]);
    int lb = freePort();
    ProcessBuilder pb = new ProcessBuilder(haproxy(), "-db", "-f", CONFIG.toString())
        .redirectErrorStream(true).redirectOutput(tmp.resolve("haproxy.log").toFile());
    pb.environment().put("GADGET_LISTEN", "127.0.0.1:" + lb);
    pb.environment().put("GADGET_NODE_A", "127.0.0.1:" + ports[0]);
    pb.environment().put("GADGET_NODE_B", "127.0.0.1:" + ports[1]);
    pb.environment().put("GADGET_NODE_C", "127.0.0.1:" + ports[2]);
    Process haproxy = pb.start();
    processes.add(haproxy);
    await("haproxy listening on " + lb, () -> haproxy.isAlive() && listening(lb));

    drone(tmp.resolve("ws"), lb);
    List<JsonNode> page = stockPage(lb, ada.pageToken(), session.id());
    CrashPage prompter = new CrashPage(lb, ada.pageToken(), session.id());
    closeables.add(prompter.client);
    String turnId = prompter.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-0")).path("turnId").asText();
    assertThat(turnId).as("the prompt's answer through haproxy").isNotEmpty();
    await("the turn's end on the stock page", () -> events(page, turnId).stream()
        .anyMatch(l -> l.path("name").asText().equals(Protocol.WORK_ORDER_COMPLETE)));
    await("the turn's end on the prompting page", () -> prompter.ended(turnId));
    ChatTurn done = store.findTurn(turnId).orElseThrow();
    assertThat(done.status()).isEqualTo(TurnStatus.FINISHED);
    int[] twice = new int[1];
    assertThat(view(events(page, turnId), twice)).containsExactlyElementsOf(stored(done));
    assertThat(twice[0]).as("events the stock page got twice").isZero();

    HttpResponse<String> polling = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + lb + "/socket.io/?EIO=4&transport=polling"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(polling.statusCode()).isEqualTo(400);
    assertThat(polling.body()).contains("WebSocket only");
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static String haproxy() {
    for (String d : List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin")) {
      if (Files.isExecutable(Path.of(d, "haproxy"))) {
        return d + "/haproxy";
      }
    }
    throw new IllegalStateException("HAProxyTest needs haproxy: install it (apt-get install "
        + "haproxy; test.sh does)");
  }
}
