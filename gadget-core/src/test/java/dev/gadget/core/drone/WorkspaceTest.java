package dev.gadget.core.drone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.WorkspaceMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceTest {
  @TempDir Path tmp;

  @Test
  void opensKeepsItsIdAcrossOpensAndRefusesACorruptFile() throws Exception {
    Workspace first = Workspace.open(tmp.resolve("ws"), "h1", Clock.systemUTC());
    first.close();
    Workspace again = Workspace.open(tmp.resolve("ws/../ws"), "h2", Clock.systemUTC());
    assertThat(again.id()).isEqualTo(first.id());
    assertThat(again.data().hostname()).isEqualTo("h2");

    Files.writeString(tmp.resolve("ws/.gadget/workspace.json"), "{not json");
    assertThatThrownBy(() -> Workspace.open(tmp.resolve("ws"), "h", Clock.systemUTC()))
        .isInstanceOf(WorkspaceException.class)
        .hasMessageContaining("is not a valid workspace file");
  }

  @Test
  void aClosedWorkspaceWritesNothingSoTheNextDronesFilesStayItsOwn() throws Exception {
    Path dir = tmp.resolve("ws");
    Workspace old = Workspace.open(dir, "old", Clock.systemUTC());
    Path file = dir.resolve(".gadget/workspace.json");
    old.close();

    Workspace next = Workspace.open(dir, "next", Clock.systemUTC());
    next.update(d -> d.withMode(WorkspaceMode.USER));
    Files.writeString(dir.resolve(".gadget/work-order.json"), "{}");
    String before = Files.readString(file);

    // A late reply reaching the old drone after it let go changes none of the next one's files.
    assertThat(old.update(d -> d.withMode(WorkspaceMode.AGENT)).mode())
        .isEqualTo(WorkspaceMode.IDLE);
    old.deleteWorkOrder();
    assertThat(Files.readString(file)).isEqualTo(before).contains("\"hostname\" : \"next\"");
    assertThat(dir.resolve(".gadget/work-order.json")).exists();
    try (var names = Files.list(dir.resolve(".gadget"))) {
      assertThat(names.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("workspace.json", "work-order.json");
    }
  }
}
