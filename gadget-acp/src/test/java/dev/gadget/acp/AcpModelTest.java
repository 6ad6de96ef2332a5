package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configured model, offered in session/new, and an editor's session/set_model. */
class AcpModelTest {
  @TempDir Path project;

  @Test
  void setModelChangesTheModelTheSessionsTurnsAskForThatSessionOnly() throws Exception {
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      AcpSchema.NewSessionResponse created = acp.client.newSession(
          new AcpSchema.NewSessionRequest(project.toString(), java.util.List.of()));
      assertThat(created.models().currentModelId()).isEqualTo("scripted-test");
      String session = created.sessionId();
      String other = acp.newSession(project);
      assertThat(acp.prompt(session, "model")).isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.client.setSessionModel(new AcpSchema.SetSessionModelRequest(session, "bigger-model"));
      assertThat(acp.prompt(session, "model")).isEqualTo(AcpSchema.StopReason.END_TURN);
      assertThat(acp.prompt(other, "model")).isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().endsWith("test"));
      assertThat(Updates.message(acp.wireUpdates())).isEqualTo(
          "Asked as scripted-testAsked as bigger-modelAsked as scripted-test");
      assertThatThrownBy(() -> acp.client.setSessionModel(
          new AcpSchema.SetSessionModelRequest(session, " ")))
          .hasMessageContaining("session/set_model needs a \"modelId\"");
    }
  }
}
