package dev.gadget.core.drone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.WorkspaceData;
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

  @Test
  void aWorkspaceFileWrittenWithIdKeysStillOpensAndIsRewrittenWithUnderscoreIds()
      throws Exception {
    Path dir = tmp.resolve("old");
    Files.createDirectories(dir.resolve(".gadget"));
    Files.writeString(dir.resolve(".gadget/workspace.json"), """
        {"workspaceId": "550e8400-e29b-41d4-a716-446655440000",
         "createdAt": "2026-04-29T19:30:00Z", "hostname": "h", "workspaceDir": "/x",
         "chatSession": {"id": "s1", "name": "Chat", "lockedAt": "2026-04-29T20:15:00Z"},
         "lockedProject": {"id": "p1", "slug": "sample", "gitUrl": "file:///o.git",
                           "lockedAt": "2026-04-29T20:15:00Z"},
         "projects": [{"id": "p1", "slug": "sample", "gitUrl": "file:///o.git",
                       "clonedAt": "2026-04-29T19:30:00Z", "lastSyncAt": null}],
         "registration": {"status": "available", "registeredAt": "2026-04-29T19:30:00Z"},
         "mode": "idle"}
        """);
    Workspace w = Workspace.open(dir, "h", Clock.systemUTC());
    assertThat(w.data().chatSession().id()).isEqualTo("s1");
    assertThat(w.data().lockedProject().id()).isEqualTo("p1");
    assertThat(w.data().projects()).extracting(WorkspaceData.ProjectEntry::id)
        .containsExactly("p1");
    assertThat(w.data().registration().id()).isNull();
    String rewritten = Files.readString(dir.resolve(".gadget/workspace.json"));
    assertThat(rewritten).contains("\"_id\" : \"s1\"").contains("\"_id\" : \"p1\"")
        .doesNotContain("\"id\"");
    w.close();
  }
}
