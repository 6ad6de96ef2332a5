package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A turn's changes through the whole runtime (server, drone, real git, the sample project's bare
 * remote): the diff block streamed and stored, undo from a page and its record, commit and push.
 */
class TurnChangesRuntimeTest extends RuntimeTestBase {

  private static String write(String path, String content) {
    return GadgetJson.mapper().createObjectNode().put("path", path).put("content", content)
        .toString();
  }

  Page page;
  String session;
  Path project;

  /** A server, a drone with the coding tools and {@code llm}, and a page watching a new chat. */
  private GadgetDrone start(ScriptedLlmClient llm) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    GadgetDrone drone = GadgetDrone.builder().transport(fx.transport.client())
        .token(ada.droneToken()).workspaceDir(tmp.resolve("ws"))
        .llmClients(p -> llm).tools(CodingTools.all())
        .heartbeatInterval(Duration.ofMillis(100)).build();
    drone.start();
    fx.closeables.add(drone);
    project = tmp.resolve("ws/sample");
    page = fx.page(ada.pageToken()).connected();
    session = fx.watchedSession(page);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    return drone;
  }

  @Test
  void aTurnsChangesAreADiffBlockThatAPageCanUndoCommitAndPush() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("read_file", "{\"path\": \"README.md\"}")
            .toolCall("write_file", write("README.md", "hello, edited\n"))
            .toolCall("write_file", write("src/Hello.java", "class Hello {}\n")).build(),
        ScriptedLlmClient.reply().text("Done.").build(),
        ScriptedLlmClient.reply().text("Nothing to change.").build());
    GadgetDrone drone = start(llm);

    String t1 = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
        "prompt", "Edit the README\nand add a class")).get("turnId").asText();
    assertThat(page.completion(t1).get("status").asText()).isEqualTo("finished");
    await("drone free", () -> drone.activeTurnId().isEmpty());

    // streamed to the page, in order, just before the end
    List<RuntimeFixture.Page.Event> events = page.eventsOf(t1);
    JsonNode changes = events.get(events.size() - 2).payload();
    assertThat(events.get(events.size() - 2).name()).isEqualTo(Protocol.TURN_CHANGES);
    assertThat(changes.path("diff").path("files").toString())
        .contains("\"path\":\"README.md\",\"change\":\"modified\"",
            "\"path\":\"src/Hello.java\",\"change\":\"added\"");
    // stored as the turn's last block, part of the snapshot
    ChatTurn stored = fx.store.findTurn(t1).orElseThrow();
    TurnBlock.Diff diff = (TurnBlock.Diff) stored.blocks().get(stored.blocks().size() - 1);
    assertThat(diff.content().patch()).contains("-hello from the sample project\n+hello, edited\n");
    JsonNode snapshot = page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    assertThat(snapshot.path("turns").get(0).path("blocks").toString())
        .contains("\"mode\":\"diff\"", "src/Hello.java");

    // a turn that changes nothing has no diff block
    String t2 = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
        "prompt", "Anything else?")).get("turnId").asText();
    page.completion(t2);
    await("drone free", () -> drone.activeTurnId().isEmpty());
    assertThat(fx.store.findTurn(t2).orElseThrow().blocks())
        .noneMatch(b -> b instanceof TurnBlock.Diff);
    assertThat(page.eventsOf(t2)).noneMatch(e -> e.name().equals(Protocol.TURN_CHANGES));
    assertThat(page.request(Protocol.UNDO_TURN, Map.of("turnId", t2)).path("error").asText())
        .isEqualTo("this turn changed no files; there is nothing to undo");

    // commit and push, on the session's branch, by ada
    JsonNode committed = page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session));
    assertThat(committed.path("ok").asBoolean()).as(committed.toString()).isTrue();
    String branch = "gadget/" + session;
    assertThat(committed.path("branch").asText()).isEqualTo(branch);
    assertThat(committed.path("message").asText()).isEqualTo("Edit the README\n");
    // the working tree keeps the changes, uncommitted, on main
    assertThat(git(project, "status", "--porcelain")).contains(" M README.md", "?? src/");
    assertThat(git(project, "symbolic-ref", "HEAD")).isEqualTo("refs/heads/main\n");
    JsonNode pushed = page.request(Protocol.PUSH_CHANGES, Map.of("sessionId", session));
    assertThat(pushed.path("ok").asBoolean()).as(pushed.toString()).isTrue();
    Path remote = tmp.resolve("origin.git");
    assertThat(git(remote, "log", "-1", "--format=%an <%ae>|%s", branch))
        .isEqualTo("ada <ada@gadget.invalid>|Edit the README\n");
    assertThat(git(remote, "show", branch + ":src/Hello.java")).isEqualTo("class Hello {}\n");

    // bad requests are told in people's words, and another user reaches nothing
    assertThat(page.request(Protocol.UNDO_TURN, Map.of("turnId", 7)).path("error").asText())
        .isEqualTo("bad undoTurn payload: \"turnId\" must be a string; got 7");
    assertThat(page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session,
        "branch", "b".repeat(201))).path("error").asText()).isEqualTo(
        "bad commitChanges payload: \"branch\" must be at most 200 characters; got 201");
    assertThat(page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session,
        "branch", "no..dots")).path("error").asText())
        .isEqualTo("\"no..dots\" is not a valid branch name");
    Page bob = fx.page(fx.person("bob").pageToken()).connected();
    assertThat(bob.request(Protocol.UNDO_TURN, Map.of("turnId", t1)).path("error").asText())
        .isEqualTo("turn not found");
    assertThat(bob.request(Protocol.PUSH_CHANGES, Map.of("sessionId", session)).path("error")
        .asText()).isEqualTo("chat session not found");

    // undo is refused once committed
    assertThat(page.request(Protocol.UNDO_TURN, Map.of("turnId", t1)).path("error").asText())
        .startsWith("this turn's changes are committed already");
  }

  @Test
  void undoFromAPageRestoresTheFilesAndIsRecordedInTheSession() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("read_file", "{\"path\": \"README.md\"}")
            .toolCall("write_file", write("README.md", "rewritten\n"))
            .toolCall("write_file", write("NEW.md", "new\n")).build(),
        ScriptedLlmClient.reply().text("Done.").build(),
        ScriptedLlmClient.reply().text("Understood.").build());
    GadgetDrone drone = start(llm);
    String t1 = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
        "prompt", "Rewrite the README")).get("turnId").asText();
    page.completion(t1);
    await("drone free", () -> drone.activeTurnId().isEmpty());
    assertThat(project.resolve("README.md")).hasContent("rewritten");

    JsonNode undone = page.request(Protocol.UNDO_TURN, Map.of("turnId", t1));

    assertThat(undone.path("ok").asBoolean()).as(undone.toString()).isTrue();
    assertThat(Files.readString(project.resolve("README.md")))
        .isEqualTo("hello from the sample project\n");
    assertThat(project.resolve("NEW.md")).doesNotExist();
    ChatTurn stored = fx.store.findTurn(t1).orElseThrow();
    TurnBlock.Diff revert = (TurnBlock.Diff) stored.blocks().get(stored.blocks().size() - 1);
    assertThat(revert.content().revertOf()).isEqualTo(t1);
    assertThat(revert.seq()).isEqualTo(stored.blocks().size() - 1);
    await("the watchers told of the undo", () -> page.eventsOf(t1).stream().anyMatch(e ->
        e.name().equals(Protocol.TURN_CHANGES) && e.payload().has("block")));
    assertThat(page.request(Protocol.UNDO_TURN, Map.of("turnId", t1)).path("error").asText())
        .isEqualTo("this turn's changes were undone already");
    assertThat(page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session))
        .path("error").asText()).startsWith("nothing to commit");

    // the model's context for the next turn says the changes were undone
    String t2 = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
        "prompt", "And now?")).get("turnId").asText();
    page.completion(t2);
    assertThat(llm.requests().get(2).messages().toString())
        .contains("(the user undid this turn's changes to the files)");
  }

  private static String git(Path dir, String... args) throws Exception {
    return RuntimeFixture.git(dir, args);
  }
}
