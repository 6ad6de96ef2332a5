package dev.gadget.core.drone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.WorkOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitTest {
  @TempDir Path tmp;

  @Test
  void aFailedCloneSaysWhyWithoutTheUrlsCredentials() {
    Git git = new Git(Duration.ofSeconds(30));
    assertThatThrownBy(() -> git.cloneOrFetch(
        "http://alice:s3cret-token@127.0.0.1:9/nowhere.git", tmp.resolve("p")))
        .isInstanceOf(WorkspaceException.class)
        .hasMessageStartingWith("git clone failed")
        .hasMessageNotContaining("s3cret-token");
  }

  @Test
  void refusesToCloneIntoANonEmptyDirectoryThatIsNotARepository() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("p"));
    Files.writeString(dir.resolve("mine.txt"), "the user's file");
    assertThatThrownBy(() -> new Git(Duration.ofSeconds(30)).cloneOrFetch("/nowhere", dir))
        .isInstanceOf(WorkspaceException.class).hasMessageContaining("not a git repository");
    assertThat(dir.resolve("mine.txt")).hasContent("the user's file");
  }

  @Test
  void credentialsNeverReachTheCachedWorkOrder() {
    assertThat(WorkOrder.ProjectRef.withoutCredentials("https://bob:tok@example.com/r.git"))
        .isEqualTo("https://example.com/r.git");
    assertThat(WorkOrder.ProjectRef.withoutCredentials("git@example.com:r.git"))
        .isEqualTo("git@example.com:r.git");
    assertThat(WorkOrder.ProjectRef.withoutCredentials("/srv/git/r.git"))
        .isEqualTo("/srv/git/r.git");
  }
}
