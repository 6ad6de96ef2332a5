package dev.gadget.core.drone.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.drone.DroneListener;
import dev.gadget.core.model.TurnStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DroneLogTest {
  @TempDir Path tmp;

  @Test
  void staysWithinItsLimitByRotatingAndNeverWritesASecret() throws Exception {
    DroneLog log = new DroneLog(tmp, Clock.systemUTC(), 4_096, "gdt_theDroneToken",
        new DroneListener() {});
    log.secret("my-own-provider-key-42");
    for (int i = 0; i < 2_000; i++) {
      log.line("INFO", "line " + i + " token gdt_theDroneToken key my-own-provider-key-42 "
          + "openai sk-proj-abcdefghijklmnop url https://bob:hunter2@git.example.com/r.git "
          + "header Bearer abcdefghijklmnopqrstuvwxyz");
    }
    log.line("INFO", "x".repeat(10_000));
    Path file = tmp.resolve(".gadget/logs/drone.log");
    Path rotated = tmp.resolve(".gadget/logs/drone.log.1");
    assertThat(Files.size(file)).isLessThanOrEqualTo(4_096);
    assertThat(Files.size(rotated)).isLessThanOrEqualTo(4_096);
    try (var names = Files.list(file.getParent())) {
      assertThat(names).hasSize(2);
    }
    String all = Files.readString(rotated) + Files.readString(file);
    assertThat(all).contains("line 1999", "[secret]", "https://[secret]@git.example.com")
        .doesNotContain("gdt_theDroneToken", "my-own-provider-key-42", "sk-proj-abcdefghijklmnop",
            "hunter2", "abcdefghijklmnopqrstuvwxyz");
    assertThat(Files.readString(file)).contains("x".repeat(2_000) + "…")
        .doesNotContain("x".repeat(2_001));

    log.close();
    log.line("INFO", "after close");
    assertThat(Files.readString(file)).doesNotContain("after close");
  }

  @Test
  void aTurnsEndSaysHowManyToolsWereLoadedAndDeferred() throws Exception {
    java.util.List<String> ends = new java.util.ArrayList<>();
    DroneLog log = new DroneLog(tmp, Clock.systemUTC(), 4_096, "gdt_t", new DroneListener() {
      @Override
      public void onTurnEnded(String turnId, String status, String message,
          dev.gadget.core.model.TurnStats stats) {
        ends.add(turnId + " " + status + " " + stats.toolsSummary());
      }
    });
    log.onTurnEnded("t1", "completed", null, TurnStats.EMPTY.withTools(13, 299));
    log.onTurnEnded("t2", "completed", null, TurnStats.EMPTY.withTools(9, 0));
    log.close();
    assertThat(Files.readString(tmp.resolve(".gadget/logs/drone.log")))
        .contains("INFO turn t1 ended completed, 13 tools loaded, 299 deferred")
        .contains("turn t2 ended completed").doesNotContain("t2 ended completed,");
    assertThat(ends).containsExactly("t1 completed 13 tools loaded, 299 deferred",
        "t2 completed ");
  }
}
