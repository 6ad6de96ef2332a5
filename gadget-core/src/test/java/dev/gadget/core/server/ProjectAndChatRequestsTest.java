package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page's projects and chats on the real server: what a new project must be (answered in
 * people's words, nothing stored); renaming and deleting chats and projects, one's own only,
 * never deleting while the agent works in them, and the pages watching a deleted chat told.
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

  private String project(Page page, String name) throws Exception {
    return page.request(Protocol.CREATE_PROJECT, Map.of("name", name, "slug", "s", "gitUrl",
        fx.gitUrl)).get("project").get("_id").asText();
  }

  private String session(Page page, String projectId) throws Exception {
    return page.request(Protocol.CREATE_SESSION, Map.of("projectId", projectId))
        .get("session").get("_id").asText();
  }

  private static List<JsonNode> deleted(Page page) {
    return page.events.stream().filter(e -> e.name().equals(Protocol.SESSION_DELETED))
        .map(Page.Event::payload).toList();
  }

  @Test
  void chatsAndProjectsAreDeletedByTheirOwnerOnly() throws Exception {
    String greeter = project(adaPage, "Greeter");
    String other = project(adaPage, "Other");
    String s1 = session(adaPage, greeter);
    String s2 = session(adaPage, greeter);
    String s3 = session(adaPage, other);

    assertThat(bobPage.request(Protocol.DELETE_SESSION, Map.of("sessionId", s1))
        .get("error").asText()).isEqualTo("chat session not found");
    assertThat(bobPage.request(Protocol.DELETE_PROJECT, Map.of("projectId", greeter))
        .get("error").asText()).isEqualTo("project not found");
    assertThat(fx.store.findSession(s1)).isPresent();
    assertThat(fx.store.findProject(greeter)).isPresent();
    assertThat(adaPage.request(Protocol.DELETE_SESSION, Map.of()).get("error").asText())
        .contains("sessionId");

    assertThat(adaPage.request(Protocol.DELETE_SESSION, Map.of("sessionId", s1))
        .get("ok").asBoolean()).isTrue();
    assertThat(fx.store.findSession(s1)).isEmpty();
    assertThat(adaPage.request(Protocol.DELETE_SESSION, Map.of("sessionId", s1))
        .get("error").asText()).as("already gone").isEqualTo("chat session not found");

    assertThat(adaPage.request(Protocol.DELETE_PROJECT, Map.of("projectId", greeter))
        .get("ok").asBoolean()).isTrue();
    assertThat(fx.store.findProject(greeter)).isEmpty();
    assertThat(fx.store.findSession(s2)).as("went with its project").isEmpty();
    assertThat(fx.store.listProjects(ada.user().id())).extracting(p -> p.id())
        .containsExactly(other);
    assertThat(fx.store.findSession(s3)).isPresent();
  }

  @Test
  void refusedWhileTheAgentWorksAndWatchersAreTold() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("slow ".repeat(500)).build())
        .tokenDelay(Duration.ofMillis(20)).build();
    fx.drone(ada, fx.root.resolve("ws"), llm);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String greeter = project(adaPage, "Greeter");
    String busy = session(adaPage, greeter);
    String idle = session(adaPage, greeter);
    Page otherTab = fx.page(ada.pageToken()).connected();
    otherTab.request(Protocol.WATCH_SESSION, Map.of("sessionId", busy));
    Page thirdTab = fx.page(ada.pageToken()).connected();
    thirdTab.request(Protocol.WATCH_SESSION, Map.of("sessionId", idle));

    String turnId = adaPage.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", busy, "prompt", "take your time")).get("turnId").asText();
    assertThat(adaPage.request(Protocol.DELETE_SESSION, Map.of("sessionId", busy))
        .get("error").asText()).isEqualTo("the agent is still working in this chat: stop it or "
        + "wait for it to finish, then delete the chat");
    assertThat(adaPage.request(Protocol.DELETE_PROJECT, Map.of("projectId", greeter))
        .get("error").asText()).isEqualTo("the agent is still working in the chat \"New chat\" "
        + "of this project: stop it or wait for it to finish, then delete the project");
    assertThat(fx.store.findSession(busy)).isPresent();
    assertThat(fx.store.findTurn(turnId)).isPresent();
    assertThat(deleted(otherTab)).isEmpty();

    adaPage.request(Protocol.CANCEL_TURN, Map.of("turnId", turnId));
    await("the turn's end", () -> fx.store.findTurn(turnId)
        .map(t -> t.status() != TurnStatus.PROCESSING).orElse(false));
    await("the turn no longer live", () -> {
      try {
        return adaPage.request(Protocol.DELETE_SESSION, Map.of("sessionId", busy)).has("ok");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    assertThat(fx.store.findSession(busy)).isEmpty();
    assertThat(fx.store.findTurn(turnId)).as("went with its chat").isEmpty();
    await("the other tab told", () -> deleted(otherTab).size() == 1);
    assertThat(deleted(otherTab).get(0).get("sessionId").asText()).isEqualTo(busy);
    assertThat(deleted(otherTab).get(0).get("projectDeleted").asBoolean()).isFalse();
    assertThat(deleted(thirdTab)).isEmpty();

    assertThat(adaPage.request(Protocol.DELETE_PROJECT, Map.of("projectId", greeter))
        .get("ok").asBoolean()).isTrue();
    await("the third tab told", () -> deleted(thirdTab).size() == 1);
    assertThat(deleted(thirdTab).get(0).get("sessionId").asText()).isEqualTo(idle);
    assertThat(deleted(thirdTab).get(0).get("projectId").asText()).isEqualTo(greeter);
    assertThat(deleted(thirdTab).get(0).get("projectDeleted").asBoolean()).isTrue();
    assertThat(deleted(otherTab)).as("it left the deleted chat's room").hasSize(1);
  }
}
