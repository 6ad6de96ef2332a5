package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a chat's changes leave behind: a proposed commit message naming the turns the commit
 * holds (none undone, none committed), and only the checkpoints that are still of use.
 */
class ChatChangesTest extends RuntimeTestBase {

  private static ScriptedLlmClient.Reply writes(String path) {
    return ScriptedLlmClient.reply().toolCall("write_file", GadgetJson.mapper()
        .createObjectNode().put("path", path).put("content", path + "\n").toString()).build();
  }

  @Test
  void theProposalNamesOnlyTheTurnsTheCommitHolds() throws Exception {
    ScriptedLlmClient.Reply done = ScriptedLlmClient.reply().text("Done.").build();
    ScriptedLlmClient llm = ScriptedLlmClient.of(writes("one.txt"), done, writes("two.txt"),
        done, writes("three.txt"), done);
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    GadgetDrone drone = fx.drone(ada, tmp.resolve("ws"), llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String[] turns = new String[3];
    String[] prompts = {"Add one", "Add two", "Add three"};
    for (int i = 0; i < 2; i++) {
      turns[i] = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
          "prompt", prompts[i])).get("turnId").asText();
      page.completion(turns[i]);
      await("drone free", () -> drone.activeTurnId().isEmpty());
    }
    assertThat(page.request(Protocol.UNDO_TURN, Map.of("turnId", turns[1])).path("ok")
        .asBoolean()).isTrue();
    JsonNode first = page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session,
        "branch", "b1"));
    assertThat(first.path("message").asText()).as(first.toString()).isEqualTo("Add one\n");
    assertThat(RuntimeFixture.git(tmp.resolve("ws/sample"), "log", "-1", "--format=%B", "b1"))
        .isEqualTo("Add one\n\n");

    turns[2] = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
        "prompt", prompts[2])).get("turnId").asText();
    page.completion(turns[2]);
    await("drone free", () -> drone.activeTurnId().isEmpty());
    JsonNode second = page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session,
        "branch", "b1"));
    assertThat(second.path("message").asText()).as(second.toString()).isEqualTo("Add three\n");
    assertThat(second.path("turnIds").toString()).isEqualTo("[\"" + turns[2] + "\"]");
  }

  @Test
  void aDroneKeepsTheCheckpointsOfItsNewestTurnsAndThoseStillToCommit() throws Exception {
    ScriptedLlmClient.Reply done = ScriptedLlmClient.reply().text("Done.").build();
    ScriptedLlmClient llm = ScriptedLlmClient.of(writes("one.txt"), done, done, done);
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    GadgetDrone drone = fx.drone(ada, tmp.resolve("ws"), llm, b -> b.keptCheckpoints(1));
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String[] turns = new String[3];
    for (int i = 0; i < 3; i++) {
      turns[i] = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
          "prompt", "turn " + i)).get("turnId").asText();
      page.completion(turns[i]);
      await("drone free", () -> drone.activeTurnId().isEmpty());
    }
    String refs = RuntimeFixture.git(tmp.resolve("ws/sample"), "for-each-ref",
        "--format=%(refname)", "refs/gadget/checkpoints/");
    // turn 0 changed a file (still to commit), turn 1 nothing (pruned), turn 2 is the newest
    assertThat(refs).contains(turns[0] + "/after", turns[2] + "/after")
        .doesNotContain(turns[1]);
  }

  @Test
  void deletingAChatRemovesItsTurnsCheckpoints() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(writes("one.txt"),
        ScriptedLlmClient.reply().text("Done.").build());
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    GadgetDrone drone = fx.drone(ada, tmp.resolve("ws"), llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
        "prompt", "add one")).get("turnId").asText();
    page.completion(turn);
    await("drone free", () -> drone.activeTurnId().isEmpty());
    Path project = tmp.resolve("ws/sample");
    assertThat(RuntimeFixture.git(project, "for-each-ref", "refs/gadget/checkpoints/"))
        .contains(turn + "/after");

    assertThat(page.request(Protocol.DELETE_SESSION, Map.of("sessionId", session)).toString())
        .doesNotContain("error");
    await("the deleted chat's checkpoints gone", () -> {
      try {
        return RuntimeFixture.git(project, "for-each-ref", "refs/gadget/checkpoints/").isEmpty();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }
}
