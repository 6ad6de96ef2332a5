package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.drone.GitPlants;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An attacker's turn against a real drone with real bubblewrap and real git: it plants every
 * kind of executable git configuration ({@link GitPlants}) by command or by the file tools, in
 * each sandbox mode; then the drone's git runs on every path (the turn's end, the next turn's
 * fetch, its diff, undo, commit and push to a local bare remote) and nothing planted runs: the
 * marker directory, outside the sandbox, stays empty.
 */
class GitPlantsRuntimeTest extends RuntimeTestBase {

  enum By { COMMAND, FILE_TOOLS }

  static Stream<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    for (SandboxPolicy policy : SandboxPolicy.values()) {
      for (By by : By.values()) {
        all.add(Arguments.of(policy, by));
      }
    }
    return all.stream();
  }

  private static String json(Object... kv) {
    var node = GadgetJson.mapper().createObjectNode();
    for (int i = 0; i < kv.length; i += 2) {
      node.put((String) kv[i], (String) kv[i + 1]);
    }
    return node.toString();
  }

  /** The attacker's first reply: plants by {@code by}, and changes a file as a turn would. */
  private static ScriptedLlmClient.Reply plant(By by, Path markers) {
    ScriptedLlmClient.Reply.Builder r = ScriptedLlmClient.reply().text("Setting up.");
    if (by == By.COMMAND) {
      return r.toolCall("run_command", json("command", GitPlants.script(markers)
          + "\necho changed >> README.md\n")).build();
    }
    String hook = "#!/bin/sh\ntouch " + markers + "/hook\n";
    return r.toolCall("write_file", json("path", ".git/hooks/reference-transaction",
            "content", hook))
        .toolCall("write_file", json("path", ".git/hooks/post-checkout", "content", hook))
        .toolCall("edit_file", json("path", ".git/config", "old_text", "[core]",
            "new_text", "[core]\n\tfsmonitor = touch " + markers + "/fsmonitor\n"
                + "[filter \"gx\"]\n\tclean = touch " + markers + "/clean; cat\n"))
        .toolCall("write_file", json("path", ".git/info/attributes", "content",
            "* filter=gx\n"))
        .toolCall("write_file", json("path", "sub/.git/config", "content",
            "[core]\n\tfsmonitor = touch " + markers + "/sub\n"))
        .toolCall("write_file", json("path", ".GIT/config", "content", "[core]\n"))
        .toolCall("write_file", json("path", ".gitattributes", "content",
            "* filter=gx diff=gx\n"))
        .toolCall("read_file", json("path", "README.md"))
        .toolCall("write_file", json("path", "README.md", "content", "changed\n"))
        .build();
  }

  private Page page;
  private String session;

  private GadgetDrone start(ScriptedLlmClient llm, SandboxPolicy policy,
      ApprovalPolicy approvals) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b.approvalPolicy(approvals));
    Person ada = fx.person("ada");
    CommandSandbox sandbox = policy == SandboxPolicy.FULL_ACCESS ? CommandSandbox.none()
        : CommandSandbox.of(policy);
    GadgetDrone drone = fx.drone(ada, tmp.resolve("ws"), llm, b -> b.sandbox(sandbox));
    page = fx.page(ada.pageToken()).connected();
    session = fx.watchedSession(page);
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    return drone;
  }

  private String turn(GadgetDrone drone, String prompt) throws Exception {
    String id = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
        "prompt", prompt)).get("turnId").asText();
    assertThat(page.completion(id).get("status").asText()).isEqualTo("finished");
    await("drone free", () -> drone.activeTurnId().isEmpty());
    return id;
  }

  @ParameterizedTest(name = "{0}, planted by {1}")
  @MethodSource("cases")
  void nothingPlantedRunsOnAnyGitPathOfTheDrone(SandboxPolicy policy, By by) throws Exception {
    Path markers = Files.createDirectories(tmp.resolve("markers"));
    ScriptedLlmClient llm = ScriptedLlmClient.of(plant(by, markers),
        ScriptedLlmClient.reply().text("Done.").build(),
        ScriptedLlmClient.reply().text("More.").toolCall("run_command",
            json("command", "echo more >> NOTES.md")).build(),
        ScriptedLlmClient.reply().text("Done again.").build());
    GadgetDrone drone = start(llm, policy, ApprovalPolicy.NEVER);
    Path project = tmp.resolve("ws/sample");

    turn(drone, "set things up"); // its end: the after checkpoint and the diff
    JsonNode committed = page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session));
    JsonNode pushed = page.request(Protocol.PUSH_CHANGES, Map.of("sessionId", session));
    // a colleague's commit, so that the next turn's fetch fast-forwards the checkout
    Path colleague = tmp.resolve("colleague");
    RuntimeFixture.git(tmp, "clone", "-q", fx.gitUrl, colleague.toString());
    Files.writeString(colleague.resolve("NEWS.md"), "news\n");
    RuntimeFixture.git(colleague, "add", "NEWS.md");
    RuntimeFixture.git(colleague, "-c", "user.name=C", "-c", "user.email=c@example.com",
        "commit", "-qm", "news");
    RuntimeFixture.git(colleague, "push", "-q", "origin", "HEAD");
    String t2 = turn(drone, "one more thing");
    JsonNode undone = page.request(Protocol.UNDO_TURN, Map.of("turnId", t2));

    assertThat(GitPlants.fired(markers)).as("planted programs that ran outside the sandbox")
        .isEmpty();
    assertThat(project.resolve("NEWS.md")).as("the next turn's fetch").exists();
    String results = llm.requests().get(1).messages().stream()
        .filter(m -> m.role() == dev.gadget.core.model.Role.TOOL).map(LlmMessage::content).toList()
        .toString();
    if (policy == SandboxPolicy.READ_ONLY) {
      assertThat(results).contains(by == By.COMMAND ? "Read-only file system"
          : "write_file refused: this drone is read-only");
      assertThat(committed.path("error").asText()).as("nothing to commit").isNotEmpty();
      assertThat(undone.path("error").asText()).as("nothing to undo").isNotEmpty();
    } else {
      if (by == By.FILE_TOOLS) {
        // every write into a .git is refused in words
        assertThat(results.split("is in git's own .git", -1)).as(results).hasSize(7);
      }
      assertThat(committed.path("ok").asBoolean()).as(committed.toString()).isTrue();
      assertThat(pushed.path("ok").asBoolean()).as(pushed.toString()).isTrue();
      assertThat(undone.path("ok").asBoolean()).as(undone.toString()).isTrue();
      assertThat(RuntimeFixture.git(tmp.resolve("origin.git"), "show",
          committed.path("branch").asText() + ":README.md")).contains("changed");
    }
    if (policy != SandboxPolicy.FULL_ACCESS) {
      // inside the sandbox .git is read-only: nothing landed there
      assertThat(project.resolve(".git/hooks/reference-transaction")).doesNotExist();
      assertThat(Files.readString(project.resolve(".git/config"))).doesNotContain("fsmonitor");
    } else if (by == By.COMMAND) {
      // without a sandbox the plants are there, and still nothing ran
      assertThat(Files.readString(project.resolve(".git/config"))).contains("fsmonitor");
    }
    // the user's own git in the checkout works as before
    assertThat(RuntimeFixture.git(project, "rev-parse", "HEAD"))
        .isEqualTo(RuntimeFixture.git(tmp.resolve("origin.git"), "rev-parse", "main"));
  }

  @Test
  void underTheCommandsPolicyNoEditMakesAnythingRunUnapproved() throws Exception {
    Path markers = Files.createDirectories(tmp.resolve("markers"));
    ScriptedLlmClient llm = ScriptedLlmClient.of(plant(By.FILE_TOOLS, markers),
        ScriptedLlmClient.reply().text("Done.").build());
    GadgetDrone drone = start(llm, SandboxPolicy.WORKSPACE_WRITE, ApprovalPolicy.COMMANDS);

    String t1 = turn(drone, "set things up"); // no command asked, so no approval asked
    JsonNode committed = page.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session));
    assertThat(committed.path("ok").asBoolean()).as(committed.toString()).isTrue();
    JsonNode pushed = page.request(Protocol.PUSH_CHANGES, Map.of("sessionId", session));
    assertThat(pushed.path("ok").asBoolean()).as(pushed.toString()).isTrue();
    assertThat(page.eventsOf(t1)).noneMatch(e -> e.name().equals(Protocol.APPROVAL_PENDING));
    assertThat(GitPlants.fired(markers)).isEmpty();
  }
}
