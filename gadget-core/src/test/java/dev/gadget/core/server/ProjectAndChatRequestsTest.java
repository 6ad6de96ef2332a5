package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page's projects and chats on the real server: what a new project must be (answered in
 * people's words, nothing stored), and renaming chats and projects, one's own only.
 */
class ProjectAndChatRequestsTest {
  RuntimeFixture fx;
  Person ada;
  Person bob;
  Page adaPage;
  Page bobPage;

  @BeforeEach
  void start(@TempDir Path tmp) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    ada = fx.person("ada");
    bob = fx.person("bob");
    adaPage = fx.page(ada.pageToken()).connected();
    bobPage = fx.page(bob.pageToken()).connected();
  }

  @AfterEach
  void stop() {
    fx.close();
  }

  private JsonNode create(Page page, String name, String gitUrl) throws Exception {
    return page.request(Protocol.CREATE_PROJECT, Map.of("name", name, "slug", "s", "gitUrl",
        gitUrl));
  }

  @Test
  void aNewProjectNeedsAWordyNameOfItsOwnAndAGitUrl() throws Exception {
    assertThat(create(adaPage, "!!!", fx.gitUrl).get("error").asText())
        .isEqualTo("a project's name needs at least one letter or digit");
    assertThat(create(adaPage, "Greeter", "not a url at all").get("error").asText())
        .startsWith("\"not a url at all\" is not a git URL or a path");
    assertThat(fx.store.listProjects(ada.user().id())).isEmpty();

    JsonNode made = create(adaPage, "  Greeter ", fx.gitUrl).get("project");
    assertThat(made.get("name").asText()).isEqualTo("Greeter");
    assertThat(create(adaPage, "greeter", fx.gitUrl).get("error").asText())
        .isEqualTo("you already have a project named \"Greeter\": choose another name");
    assertThat(create(bobPage, "Greeter", fx.gitUrl).has("project"))
        .as("another user's names do not count").isTrue();
    assertThat(fx.store.listProjects(ada.user().id())).hasSize(1);
  }

  @Test
  void chatsAndProjectsAreRenamedByTheirOwnerOnly() throws Exception {
    String projectId = create(adaPage, "Greeter", fx.gitUrl).get("project").get("_id").asText();
    create(adaPage, "Other", fx.gitUrl);
    String sessionId = adaPage.request(Protocol.CREATE_SESSION, Map.of("projectId", projectId))
        .get("session").get("_id").asText();

    JsonNode renamed = adaPage.request(Protocol.RENAME_SESSION,
        Map.of("sessionId", sessionId, "name", "  Why   the build fails "));
    assertThat(renamed.get("session").get("name").asText()).isEqualTo("Why the build fails");
    assertThat(fx.store.findSession(sessionId).orElseThrow().name())
        .isEqualTo("Why the build fails");
    assertThat(bobPage.request(Protocol.RENAME_SESSION,
        Map.of("sessionId", sessionId, "name", "mine")).get("error").asText())
        .isEqualTo("chat session not found");
    assertThat(adaPage.request(Protocol.RENAME_SESSION,
        Map.of("sessionId", sessionId, "name", "   ")).has("error")).isTrue();

    assertThat(adaPage.request(Protocol.RENAME_PROJECT,
        Map.of("projectId", projectId, "name", "other")).get("error").asText())
        .isEqualTo("you already have a project named \"Other\": choose another name");
    assertThat(adaPage.request(Protocol.RENAME_PROJECT,
        Map.of("projectId", projectId, "name", "greeter")).get("project").get("name").asText())
        .as("its own name in another case").isEqualTo("greeter");
    assertThat(bobPage.request(Protocol.RENAME_PROJECT,
        Map.of("projectId", projectId, "name", "mine")).get("error").asText())
        .isEqualTo("project not found");
    assertThat(fx.store.findProject(projectId).orElseThrow().name()).isEqualTo("greeter");
    assertThat(fx.store.findSession(sessionId).orElseThrow().name())
        .isEqualTo("Why the build fails");
  }
}
