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
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * What a chat's changes leave behind: a proposed commit message naming the turns the commit
 * holds (none undone, none committed), and only the checkpoints that are still of use.
 */
class ChatChangesTest extends RuntimeTestBase {

  private GadgetDrone drone;
  private Page page;
  private String session;

  /** A server, ada's drone ({@code tweak} applied) with {@code llm}, and her page on a chat. */
  private void start(ScriptedLlmClient llm, UnaryOperator<GadgetDrone.Builder> tweak)
      throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    drone = fx.drone(ada, tmp.resolve("ws"), llm, tweak);
    page = fx.page(ada.pageToken()).connected();
    session = fx.watchedSession(page);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
  }

  /** Runs a turn of {@code prompt} to its end; its id. */
  private String turn(String prompt) throws Exception {
    String id = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
        "prompt", prompt)).get("turnId").asText();
    page.completion(id);
    await("drone free", () -> drone.activeTurnId().isEmpty());
    return id;
  }

  private static ScriptedLlmClient.Reply writes(String path) {
    return ScriptedLlmClient.reply().toolCall("write_file", GadgetJson.mapper()
        .createObjectNode().put("path", path).put("content", path + "\n").toString()).build();
  }

  @Test
  void theProposalNamesOnlyTheTurnsTheCommitHolds() throws Exception {
    ScriptedLlmClient.Reply done = ScriptedLlmClient.reply().text("Done.").build();
    ScriptedLlmClient llm = ScriptedLlmClient.of(writes("one.txt"), done, writes("two.txt"),
        done, writes("three.txt"), done);
    start(llm, b -> b);
    String[] turns = new String[3];
    String[] prompts = {"Add one", "Add two", "Add three"};
    for (int i = 0; i < 2; i++) {
      turns[i] = turn(prompts[i]);
    }
    assertThat(page.request(Protocol.UNDO_TURN, Map.of("turnId", turns[1])).path("ok")
        .asBoolean()).isTrue();
    JsonNode first = page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session,
        "branch", "b1"));
    assertThat(first.path("message").asText()).as(first.toString()).isEqualTo("Add one\n");
    assertThat(RuntimeFixture.git(tmp.resolve("ws/sample"), "log", "-1", "--format=%B", "b1"))
        .isEqualTo("Add one\n\n");

    turns[2] = turn(prompts[2]);
    JsonNode second = page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session,
        "branch", "b1"));
    assertThat(second.path("message").asText()).as(second.toString()).isEqualTo("Add three\n");
    assertThat(second.path("turnIds").toString()).isEqualTo("[\"" + turns[2] + "\"]");
  }

  @Test
  void aDroneKeepsTheCheckpointsOfItsNewestTurnsAndThoseStillToCommit() throws Exception {
    ScriptedLlmClient.Reply done = ScriptedLlmClient.reply().text("Done.").build();
    ScriptedLlmClient llm = ScriptedLlmClient.of(writes("one.txt"), done, done, done);
    start(llm, b -> b.keptCheckpoints(1));
    String[] turns = new String[3];
    for (int i = 0; i < 3; i++) {
      turns[i] = turn("turn " + i);
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
    start(llm, b -> b);
    String turn = turn("add one");
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
