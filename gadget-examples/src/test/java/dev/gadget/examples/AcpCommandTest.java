package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gadget acp --llm scripted} as an editor starts it: a subprocess on stdio. */
class AcpCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long DEADLINE_S = 60;

  @TempDir Path project;
  @TempDir Path sessions;

  @Test
  void anEditorGetsTheDemoScriptOverStdio() throws Exception {
    Files.writeString(project.resolve("README.md"), "# Greeter\n\nSays hello.\n");
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "acp",
        "--llm", "scripted", "--sessions-dir", sessions.toString(), "--sandbox", "read-only",
        "--sandbox-network");
    Path log = sessions.resolve("stderr.log");
    Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
    BlockingQueue<JsonNode> out = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          out.add(JSON.readTree(line)); // standard output is the protocol only
        }
      } catch (Exception e) {
        out.add(JSON.createObjectNode().put("notJson", e.toString()));
      }
    });
    reader.setDaemon(true);
    reader.start();
    try (OutputStream in = p.getOutputStream()) {
      send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
          + "{\"protocolVersion\":1,\"clientCapabilities\":{}}}");
      JsonNode init = next(out);
      assertThat(init.path("result").path("protocolVersion").asInt()).isEqualTo(1);
      assertThat(init.path("result").path("agentInfo").path("name").asText()).isEqualTo("gadget");
      send(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\",\"params\":{\"cwd\":"
          + JSON.writeValueAsString(project.toString()) + ",\"mcpServers\":[]}}");
      String session = next(out).path("result").path("sessionId").asText();
      assertThat(session).isNotEmpty();
      assertThat(sessions.resolve("sessions").resolve(session)).as("stored where told")
          .isDirectory();
      send(in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/prompt\",\"params\":"
          + "{\"sessionId\":\"" + session + "\",\"prompt\":[{\"type\":\"text\",\"text\":"
          + "\"What is this project about?\"}]}}");
      List<String> tools = new ArrayList<>();
      StringBuilder message = new StringBuilder();
      JsonNode end;
      while (true) {
        JsonNode msg = next(out);
        if (msg.path("id").asInt() == 3) {
          end = msg;
          break;
        }
        JsonNode u = msg.path("params").path("update");
        if (u.path("sessionUpdate").asText().equals("tool_call")) {
          tools.add(u.path("kind").asText() + " " + u.path("title").asText());
        } else if (u.path("sessionUpdate").asText().equals("agent_message_chunk")) {
          message.append(u.path("content").path("text").asText());
        }
      }
      assertThat(end.path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(tools).containsExactly("search List the project", "read Read README.md");
      assertThat(message.toString()).contains("Scripted reply").contains("Says hello.");
    }
    assertThat(p.waitFor(DEADLINE_S, TimeUnit.SECONDS)).as("exits when stdin closes").isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(Files.readString(log)).contains("sessions: " + sessions.toRealPath(),
        "Commands run in a read-only sandbox with network");
  }

  @Test
  void optionsItCannotUseAreRefusedInWords() {
    Map<List<String>, String> bad = Map.of(
        List.of("--sandbox", "somewhere"), "gadget acp: no sandbox policy \"somewhere\"; the "
            + "policies are read-only, workspace-write and full-access",
        List.of("--context-window", "12"), "gadget acp: --context-window takes a number of "
            + "tokens, 1024 or more; not '12'",
        List.of("--sandbox-hide", project.resolve("nowhere").toString()), "gadget acp: "
            + "--sandbox-hide: " + project.resolve("nowhere") + " is not a directory");
    bad.forEach((options, said) -> {
      CommandsFixture.Out o = new CommandsFixture.Out();
      List<String> argv = new ArrayList<>(List.of("acp", "--llm", "scripted"));
      argv.addAll(options);
      assertThat(Main.run(argv, o.console(Map.of()), false)).as(options.toString())
          .isEqualTo(2);
      assertThat(o.err()).as(options.toString()).contains(said).doesNotContain("Exception");
    });
  }

  private static void send(OutputStream in, String line) throws Exception {
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  private static JsonNode next(BlockingQueue<JsonNode> out) throws InterruptedException {
    JsonNode msg = out.poll(DEADLINE_S, TimeUnit.SECONDS);
    assertThat(msg).as("a message within " + DEADLINE_S + " s").isNotNull();
    assertThat(msg.has("notJson")).as("standard output is JSON only").isFalse();
    return msg;
  }
}
