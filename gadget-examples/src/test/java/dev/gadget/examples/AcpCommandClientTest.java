package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.client.AcpClient;
import com.agentclientprotocol.sdk.client.AcpSyncClient;
import com.agentclientprotocol.sdk.client.transport.AgentParameters;
import com.agentclientprotocol.sdk.client.transport.StdioAcpClientTransport;
import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gadget acp --llm scripted} as a subprocess, driven by the official ACP Java SDK's
 * client (not the code under test): a session in one process, loaded in the next.
 */
class AcpCommandClientTest {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir Path project;
  @TempDir Path sessions;

  @Test
  void theSdksClientPromptsGadgetAcpAndTheNextProcessLoadsTheSession() throws Exception {
    Files.writeString(project.resolve("README.md"), "# Greeter\n\nSays hello.\n");
    String id;
    List<AcpSchema.SessionUpdate> first = new CopyOnWriteArrayList<>();
    AcpSyncClient client = start(first);
    try {
      AcpSchema.InitializeResponse init = client.initialize(new AcpSchema.InitializeRequest(1,
          new AcpSchema.ClientCapabilities()));
      assertThat(init.protocolVersion()).isEqualTo(1);
      assertThat(init.agentInfo().name()).isEqualTo("gadget");
      assertThat(init.agentCapabilities().loadSession()).isTrue();
      id = client.newSession(new AcpSchema.NewSessionRequest(project.toString(), List.of()))
          .sessionId();
      AcpSchema.PromptResponse answer = client.prompt(new AcpSchema.PromptRequest(id,
          List.of(new AcpSchema.TextContent("What is this project about?"))));
      assertThat(answer.stopReason()).isEqualTo(AcpSchema.StopReason.END_TURN);
      await(first, u -> u instanceof AcpSchema.AgentMessageChunk m
          && text(m.content()).contains("Scripted"));
      await(first, u -> toolCalls(first).size() == 2);
      assertThat(toolCalls(first)).containsExactlyInAnyOrder("SEARCH List the project",
          "READ Read README.md");
    } finally {
      client.closeGracefully();
    }

    List<AcpSchema.SessionUpdate> second = new CopyOnWriteArrayList<>();
    client = start(second);
    try {
      client.initialize(new AcpSchema.InitializeRequest(1, new AcpSchema.ClientCapabilities()));
      client.loadSession(new AcpSchema.LoadSessionRequest(id, project.toString(), List.of()));
      await(second, u -> u instanceof AcpSchema.AgentMessageChunk m
          && text(m.content()).contains("Scripted"));
      await(second, u -> u instanceof AcpSchema.UserMessageChunk m
          && text(m.content()).equals("What is this project about?"));
      await(second, u -> toolCalls(second).size() == 2);
      // (the SDK's client hands notifications over on several threads: their order is
      // checked in gadget-acp's tests, on a copy of what the agent wrote)
      assertThat(toolCalls(second)).containsExactlyInAnyOrder("SEARCH List the project",
          "READ Read README.md");
    } finally {
      client.closeGracefully();
    }
  }

  private AcpSyncClient start(List<AcpSchema.SessionUpdate> updates) {
    AgentParameters agent = AgentParameters.builder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString())
        .args(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "acp",
            "--llm", "scripted", "--sessions-dir", sessions.toString()))
        .build();
    return AcpClient.sync(new StdioAcpClientTransport(agent)).requestTimeout(DEADLINE)
        .sessionUpdateConsumer(n -> updates.add(n.update())).build();
  }

  private static List<String> toolCalls(List<AcpSchema.SessionUpdate> updates) {
    List<String> out = new ArrayList<>();
    for (AcpSchema.SessionUpdate u : updates) {
      if (u instanceof AcpSchema.ToolCall t) {
        out.add(t.kind() + " " + t.title());
      }
    }
    return out;
  }

  private static String text(AcpSchema.ContentBlock c) {
    return c instanceof AcpSchema.TextContent t ? t.text() : "";
  }

  private static void await(List<AcpSchema.SessionUpdate> updates,
      java.util.function.Predicate<AcpSchema.SessionUpdate> which) throws InterruptedException {
    Instant end = Instant.now().plus(DEADLINE);
    while (updates.stream().noneMatch(which)) {
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("no such update within " + DEADLINE + "; got " + updates);
      }
      synchronized (updates) {
        updates.wait(20);
      }
    }
  }
}
