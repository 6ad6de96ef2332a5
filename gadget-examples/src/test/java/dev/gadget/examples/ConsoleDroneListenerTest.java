package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.TurnStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** What the example drone prints when a turn ends: how many tools were loaded and deferred. */
class ConsoleDroneListenerTest {
  @Test
  void aTurnsEndSaysTheToolsLoadedAndDeferred() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ConsoleDroneListener console = new ConsoleDroneListener(new PrintStream(bytes, true,
        StandardCharsets.UTF_8), "ws://127.0.0.1:1", new CompletableFuture<>());
    console.onTurnEnded("t1", "completed", null, TurnStats.EMPTY.withTools(13, 299));
    console.onTurnEnded("t2", "error", "the model failed", TurnStats.EMPTY.withTools(9, 0));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("turn t1 ended: completed; 13 tools loaded, 299 deferred")
        .contains("turn t2 ended: error (the model failed)")
        .doesNotContain("failed);");
  }
}
