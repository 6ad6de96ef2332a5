package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.Project;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProjectRulesTest {
  private static final List<Project> NONE = List.of();

  @Test
  void gitUrlsAndPathsADroneCanCloneAreAccepted() {
    for (String url : List.of("https://github.com/owner/repo.git", "http://127.0.0.1:8080/r.git",
        "ssh://git@host:22/owner/repo", "git://host/repo", "file:///srv/git/repo.git",
        "git@github.com:owner/repo.git", "/home/ann/greeter", "~/code/greeter",
        "C:\\code\\greeter")) {
      assertThat(ProjectRules.check("Greeter", url, NONE)).as(url).isEqualTo("Greeter");
    }
  }

  @Test
  void somethingThatIsNoUrlIsRefusedSayingWhatWouldDo() {
    for (String url : List.of("not a url at all", "!!!", "repo.git", "https://", "ftp x")) {
      assertThatThrownBy(() -> ProjectRules.check("Greeter", url, NONE)).as(url)
          .isInstanceOf(RequestException.class)
          .hasMessageContaining("is not a git URL or a path")
          .hasMessageContaining("git@host:owner/repo.git");
    }
  }

  @Test
  void aNameNeedsALetterOrDigitAndIsTrimmed() {
    assertThatThrownBy(() -> ProjectRules.check("!!!", "/srv/repo", NONE))
        .hasMessage("a project's name needs at least one letter or digit");
    assertThat(ProjectRules.check("  Grüße 2 ", "/srv/repo", NONE)).isEqualTo("Grüße 2");
  }

  @Test
  void aNameAlreadyUsedIsRefusedWhateverItsCase() {
    List<Project> existing = List.of(new Project("p1", "u1", "Greeter", "greeter", "/srv/g",
        Instant.EPOCH));
    assertThatThrownBy(() -> ProjectRules.check(" greeter ", "/srv/repo", existing))
        .hasMessage("you already have a project named \"Greeter\": choose another name");
    assertThat(ProjectRules.check("Greeter 2", "/srv/repo", existing)).isEqualTo("Greeter 2");
  }
}
