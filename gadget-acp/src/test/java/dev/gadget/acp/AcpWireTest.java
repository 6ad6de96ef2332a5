package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a broken client sends, written raw to the agent's standard input: each is answered with
 * a JSON-RPC error in people's words, and the process goes on.
 */
class AcpWireTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private Process agent;
  private OutputStream in;
  private final BlockingQueue<JsonNode> out = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() throws Exception {
    agent = new ProcessBuilder(AcpClientHarness.javaBin(), "-cp",
        System.getProperty("java.class.path"), ScriptedAgentMain.class.getName())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    in = agent.getOutputStream();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(agent.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          out.add(JSON.readTree(line)); // fails the test's poll if stdout is not pure JSON
        }
      } catch (Exception e) {
        // the process ended
      }
    });
    reader.setDaemon(true);
    reader.start();
  }

  @AfterEach
  void stop() throws Exception {
    in.close();
    if (!agent.waitFor(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
      agent.destroyForcibly();
      throw new AssertionError("the agent did not exit when its input closed");
    }
  }

  private void send(String line) throws Exception {
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  private JsonNode next() throws InterruptedException {
    JsonNode msg = out.poll(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS);
    assertThat(msg).as("an answer within the deadline").isNotNull();
    return msg;
  }

  private void assertAlive() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":\"alive\",\"method\":\"initialize\","
        + "\"params\":{\"protocolVersion\":1}}");
    JsonNode msg = next();
    assertThat(msg.path("id").asText()).isEqualTo("alive");
    assertThat(msg.path("result").path("protocolVersion").asInt()).isEqualTo(1);
    assertThat(agent.isAlive()).isTrue();
  }

  @Test
  void aLineThatIsNotJsonIsAParseError() throws Exception {
    send("this is not json {");
    JsonNode msg = next();
    assertThat(msg.path("id").isNull()).isTrue();
    assertThat(msg.path("error").path("code").asInt()).isEqualTo(-32700);
    assertThat(msg.path("error").path("message").asText())
        .startsWith("Gadget could not read that message: it is not valid JSON");
    assertAlive();
  }

  @Test
  void jsonThatIsNotJsonRpcIsAnInvalidRequest() throws Exception {
    for (String line : List.of("[1,2]", "{\"id\":7,\"method\":\"initialize\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":42}")) {
      send(line);
      JsonNode msg = next();
      assertThat(msg.path("error").path("code").asInt()).as(line).isEqualTo(-32600);
      assertThat(msg.path("error").path("message").asText())
          .startsWith("Gadget could not read that message");
    }
    assertAlive();
  }

  @Test
  void anUnknownMethodIsMethodNotFoundNamingTheKnownOnes() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/teleport\",\"params\":{}}");
    JsonNode msg = next();
    assertThat(msg.path("id").asInt()).isEqualTo(5);
    assertThat(msg.path("error").path("code").asInt()).isEqualTo(-32601);
    assertThat(msg.path("error").path("message").asText())
        .contains("no method \"session/teleport\"").contains("session/prompt");
    // an unknown notification is ignored, as JSON-RPC says
    send("{\"jsonrpc\":\"2.0\",\"method\":\"session/teleport\",\"params\":{}}");
    assertAlive();
  }

  @Test
  void anOversizedMessageIsRefusedAndSkipped() throws Exception {
    String big = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"initialize\",\"params\":{\"x\":\""
        + "a".repeat(100_000) + "\"}}";
    send(big);
    JsonNode msg = next();
    assertThat(msg.path("error").path("code").asInt()).isEqualTo(-32600);
    assertThat(msg.path("error").path("message").asText())
        .contains(big.length() + " bytes long").contains("limit of 65536 bytes");
    assertAlive();
  }

  @Test
  void badParamsAreAnsweredInPeoplesWords() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"rel\"}}");
    JsonNode msg = next();
    assertThat(msg.path("error").path("code").asInt()).isEqualTo(-32602);
    assertThat(msg.path("error").path("message").asText())
        .isEqualTo("\"cwd\" must be the absolute path of a directory; \"rel\" is not.");
    send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{\"sessionId\":"
        + "\"nope\",\"prompt\":[]}}");
    msg = next();
    assertThat(msg.path("error").path("code").asInt()).isEqualTo(-32002);
    assertThat(msg.path("error").path("message").asText()).contains("no session \"nope\"");
    assertAlive();
  }
}
