package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.Ids;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.Role;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The page as a person meets it, in Chromium at 1280x800 and 390x844, light and dark
 * ({@code src/test/node/ux.js}, {@code deleting.js}): a new user on a phone, sign-in links
 * pasted into an open tab, the contrast of every text style, deleting chats and projects. Screenshots go to {@code target/screenshots/}.
 */
class BrowserUxTest extends BrowserTestBase {
  static final Path SHOTS = Path.of("target/screenshots").toAbsolutePath();
  static final String PROMPT = "What is this project about?";
  static final String PROMPT2 = "Find the tests and run them.";

  @BeforeAll
  static void screenshots() throws Exception {
    Files.createDirectories(SHOTS);
  }

  private static ScriptedLlmClient withTool() {
    return ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(2))
        .script(r -> r.messages().get(r.messages().size() - 1).role() != Role.TOOL
            ? ScriptedLlmClient.reply().thinking("I will read the README first.")
                .text("Let me read the README.")
                .toolCall("read_file", "{\"path\":\"README.md\"}").build()
            : ScriptedLlmClient.reply().thinking("The README describes a greeter.")
                .text("A **greeter**. Run it with:\n\n```sh\njava src/Greeter.java\n```\n")
                .build())
        .build();
  }

  private Map<String, Object> config(String scenario, int width, int height, String scheme) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", scenario);
    c.put("width", width);
    c.put("height", height);
    c.put("colorScheme", scheme);
    c.put("shotDir", SHOTS.toString());
    c.put("timeoutMs", 30000);
    return c;
  }

  @Test
  void aNewUserOnAPhoneCreatesAProjectChatsAndSwitchesChats() throws Exception {
    fx = new PageFixture(tmp, withTool(), true, false);
    Map<String, Object> c = config("newUser", 390, 844, "light");
    c.put("projectName", "Greeter");
    c.put("gitUrl", fx.root.resolve("greeter").toString());
    c.put("prompt", PROMPT);
    c.put("prompt2", PROMPT2);
    c.put("search", "project about");
    JsonNode r = BrowserHarness.run(c);

    // One line of top bar, and the way in is offered where the sidebar used to be.
    assertThat(r.get("topbar").asDouble()).as("top bar height").isLessThan(56);
    assertThat(distinct(r.get("brandRow"))).as("top bar items' rows").hasSize(1);
    assertThat(r.get("emptyText").asText()).contains("Create a project to begin");
    assertThat(r.get("focusedOnLoad").asText()).isEqualTo("prompt");
    assertThat(r.get("badUrl").asText()).contains("is not a git URL or a path");
    assertThat(r.get("suggestions").size()).isGreaterThanOrEqualTo(3);
    assertThat(r.get("first").asText()).isEqualTo("finished");
    assertThat(r.get("second").asText()).isEqualTo("finished");
    assertThat(r.get("titleAfterTurn").asText()).startsWith("✓ Finished");
    assertThat(r.get("drawer").get("sessions").asBoolean()).isTrue();
    assertThat(r.get("drawer").get("drones").asBoolean()).isTrue();
    assertThat(r.get("drawer").get("newChat").asBoolean()).isTrue();
    assertThat(r.get("drawerClosed").asBoolean()).as("choosing a chat closes the drawer").isTrue();
    assertThat(texts(r.get("afterSearch"))).containsExactly(PROMPT);
    assertThat(texts(r.get("sessions"))).containsExactly(PROMPT, PROMPT2);
    assertThat(r.get("ariaLive").asText()).isEqualTo("polite");
    assertThat(r.get("contrast").get("failures")).as("texts under 4.5:1").isEmpty();

    List<Project> projects = fx.store.store().listProjects(fx.user.user().id());
    assertThat(projects).extracting(Project::name).containsExactly("Greeter");
    List<ChatSession> sessions = fx.store.store().listSessions(fx.user.user().id(), null);
    assertThat(sessions).extracting(ChatSession::name).containsExactlyInAnyOrder(PROMPT, PROMPT2);
    for (ChatSession s : sessions) {
      assertThat(fx.store.store().listTurns(s.id())).hasSize(1);
    }
  }

  @Test
  void aSignInLinkPastedIntoAnOpenTabSignsIn() throws Exception {
    fx = new PageFixture(tmp, withTool(), true);
    for (int[] size : new int[][] {{390, 844}, {1280, 800}}) {
      Map<String, Object> c = config("signInLink", size[0], size[1], "light");
      c.put("url", fx.app.pageUrl() + "#token=" + fx.user.droneToken());
      c.put("userUrl", fx.signInUrl());
      c.put("ignoreResourceErrors", true); // the refused token's GET /api/me: 401, as meant
      JsonNode r = BrowserHarness.run(c);
      assertThat(r.get("droneMessage").asText()).contains("this is a drone token")
          .contains("page token");
      assertThat(r.get("colours").get("error").asText())
          .isEqualTo(r.get("colours").get("bad").asText());
      assertThat(r.get("sameDocument").asBoolean()).as("signed in without a reload").isTrue();
      assertThat(r.get("errorAfter").asText()).isEmpty();
      assertThat(r.get("addressBar").asText()).doesNotContain("token=");
    }
  }

  @Test
  void everyTextStyleHasContrastOfAtLeast45InLightAndDark() throws Exception {
    fx = new PageFixture(tmp, withTool(), true);
    for (String scheme : List.of("light", "dark")) {
      for (int[] size : new int[][] {{1280, 800}, {390, 844}}) {
        Map<String, Object> c = config("contrast", size[0], size[1], scheme);
        c.put("prompt", PROMPT);
        JsonNode r = BrowserHarness.run(c);
        assertThat(r.get("status").asText()).isEqualTo("finished");
        assertThat(r.get("failures")).as("%s %sx%s: texts under 4.5:1", scheme, size[0], size[1])
            .isEmpty();
        List<String> names = new ArrayList<>();
        r.get("checked").forEach(n -> names.add(n.get("name").asText()));
        if (size[0] == 1280) {
          assertThat(String.join(" ", names)).as("the styles the issue measured were checked")
              .contains("summary", "tool-name", "tool-status", "status-label", "conn",
                  "signin-error", "prompt-text", "drone-status");
        }
      }
    }
  }

  @Test
  void thePageAndSocketIoWorkThroughOneForwardedPort() throws Exception {
    fx = new PageFixture(tmp, withTool(), true);
    // As ssh -L or a container's -p would: every byte of one local port to the page's port.
    InetSocketAddress pagePort = new InetSocketAddress("127.0.0.1", fx.app.httpPort());
    try (SharedPort forwarded = new SharedPort("127.0.0.1", 0, (path, client) -> pagePort)) {
      Map<String, Object> c = config("stream", 1280, 800, "light");
      c.put("url", "http://127.0.0.1:" + forwarded.port() + "/#token=" + fx.user.pageToken());
      c.put("prompt", PROMPT);
      JsonNode r = BrowserHarness.run(c);
      assertThat(r.get("status").asText()).isEqualTo("finished");
      List<String> modes = new ArrayList<>();
      r.get("blocks").forEach(b -> modes.add(b.get("mode").asText()));
      assertThat(modes).containsExactly("thinking", "responding", "tool", "thinking", "responding");
      assertThat(fx.store.store().listTurns(fx.session.id())).hasSize(1);
    }
  }

  @Test
  void aReplyWithAnOnerrorHandlerLogsNoErrorUnderTheCsp() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.of(ScriptedLlmClient.reply()
        .text("An image: <img src=x onerror=\"window.__pwned='img'\"> and "
            + "<svg><circle onload=\"window.__pwned='svg'\"/></svg> the end.").build()), true);
    Map<String, Object> c = config("stream", 1280, 800, "light");
    c.put("prompt", PROMPT);
    c.put("ignoreResourceErrors", true); // the harmless <img src=x> left in fails to load
    JsonNode r = BrowserHarness.run(c); // fails on any other console error, CSP reports too
    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("blocks").get(0).get("text").asText()).contains("An image:", "the end.");
  }

  static final String CODE = "static String greet(String name) {\n  return \"Hello, \" + name;\n}";
  static final String REPLY = "Here is `greet`:\n\n```java\n" + CODE + "\n```\n\nThat is all.";

  @Test
  void codeIsHighlightedAndCopiedThinkingFoldsAlikeAndLongPromptsFold() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(2))
        .script(r -> ScriptedLlmClient.reply().thinking("Let me think about **greet**.")
            .text(REPLY)
            .build()).build(), true);
    Map<String, Object> c = config("reading", 1280, 800, "light");
    c.put("prompt", PROMPT);
    c.put("longLines", 2500);
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("code").get("hljs").asBoolean()).as("highlight.js ran").isTrue();
    assertThat(r.get("code").get("spans").asInt()).as("highlighted tokens").isGreaterThan(2);
    assertThat(r.get("code").get("text").asText()).isEqualTo(CODE + "\n");
    assertThat(r.get("copiedCode").asText()).isEqualTo(CODE + "\n");
    assertThat(r.get("copiedReply").asText()).isEqualTo(REPLY);
    assertThat(r.get("blocks").toString()).as("the Copy buttons add no text to blocks")
        .doesNotContain("Copy");
    assertThat(r.get("live").toString()).isEqualTo("[false]");
    assertThat(r.get("reloaded")).isEqualTo(r.get("live"));
    assertThat(r.get("reopened").toString()).as("the folding the person chose, kept")
        .isEqualTo("[true]");
    assertThat(r.get("thinkingHtml").asText()).as("thinking as Markdown")
        .contains("<strong>greet</strong>");
    assertThat(r.get("streaming").get("seen").asBoolean()).as("a cursor while it streamed")
        .isTrue();
    assertThat(r.get("streaming").get("left").asInt()).as("and none after").isZero();
    assertThat(r.get("maxHeight").asText()).isNotEqualTo("none");
    assertThat(r.get("folded").asDouble()).as("a folded long prompt").isLessThan(400);
    assertThat(r.get("unfolded").asDouble()).isGreaterThan(5000);
    assertThat(r.get("unfoldLabel").asText()).contains("2,500 lines");
    assertThat(r.get("fullText").asInt()).isEqualTo(r.get("longLength").asInt());
  }

  @Test
  void aPersonSeesTheWorkspaceTakesItOverGivesItBackAndPicksTheDrone() throws Exception {
    fx = new PageFixture(tmp, withTool(), true);
    JsonNode r = BrowserHarness.run(config("droneControls", 1280, 800, "light"));
    assertThat(r.get("stateText").asText()).startsWith("mode: idle, status: available");
    assertThat(r.get("tookOver").asText()).isEqualTo("The workspace is yours: the agent takes "
        + "no work here until you give it back.");
    assertThat(r.get("refused").asText()).contains("user mode");
    assertThat(r.get("gaveBack").asText()).isEqualTo("The agent may work here again.");
    assertThat(r.get("used").asText()).startsWith("This chat now runs on ");
    assertThat(r.get("stateStillOpen").asBoolean()).as("kept open across refreshes").isTrue();
  }

  @Test
  void chatsAndProjectsAreRenamedInPlace() throws Exception {
    fx = new PageFixture(tmp, withTool(), true);
    Map<String, Object> c = config("rename", 1280, 800, "light");
    c.put("chatName", "Greeting plans");
    c.put("projectName", "Greeter main");
    JsonNode r = BrowserHarness.run(c);
    assertThat(r.get("refused").asText()).contains("needs at least one letter or digit");
    assertThat(r.get("projectShown").asText()).isEqualTo("Greeter main");
    assertThat(r.get("chatAfterReload").asText()).isEqualTo("Greeting plans");
    assertThat(r.get("projectAfterReload").asText()).isEqualTo("Greeter main");
    assertThat(fx.store.store().findSession(fx.session.id()).orElseThrow().name())
        .isEqualTo("Greeting plans");
    assertThat(fx.store.store().findProject(fx.project.id()).orElseThrow().name())
        .isEqualTo("Greeter main");
  }

  @Test
  void enterWhileTheAgentWorksKeepsThePromptAndSaysSo() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(20))
        .script(r -> ScriptedLlmClient.reply()
            .text("A slow answer, word by word, so that the turn is still running when the "
                + "person presses Enter again with their next question in the box.").build())
        .build(), true);
    Map<String, Object> c = config("busy", 1280, 800, "light");
    c.put("prompt", PROMPT);
    c.put("prompt2", PROMPT2);
    JsonNode r = BrowserHarness.run(c);
    JsonNode busy = r.get("whileBusy");
    assertThat(busy.get("error").asText()).contains("still working", "stays here");
    assertThat(busy.get("kept").asText()).isEqualTo(PROMPT2);
    assertThat(busy.get("turns").asInt()).isEqualTo(1);
    assertThat(busy.get("title").asText()).startsWith("Working…");
    // at 1280x800: "The agent is working…" on one line beside Cancel, the picker labelled
    assertThat(busy.get("status").get("text").asText()).isEqualTo("The agent is working…");
    assertThat(busy.get("statusHeight").asDouble()).as("one line, no taller than Cancel")
        .isLessThanOrEqualTo(busy.get("sendHeight").asDouble());
    assertThat(busy.get("pickerLabel").asText()).startsWith("Approvals:");
    assertThat(busy.get("modelCount").asText()).isEqualTo("1 model");
    assertThat(r.get("second").asText()).isEqualTo("finished");
    assertThat(r.get("turns").asInt()).isEqualTo(2);
    assertThat(r.get("errorAfter").asText()).isEmpty();
    assertThat(fx.store.store().listTurns(fx.session.id())).extracting(t -> t.prompt())
        .containsExactly(PROMPT, PROMPT2);
  }

  @Test
  void chatsAndProjectsAreDeletedAfterAConfirmationAndOtherTabsLeaveThem() throws Exception {
    for (int[] size : new int[][] {{1280, 800}, {390, 844}}) {
      if (fx != null) {
        fx.close();
      }
      fx = new PageFixture(tmp.resolve("at-" + size[0]), withTool(), true);
      var store = fx.store.store();
      String owner = fx.user.user().id();
      ChatSession second = new ChatSession(Ids.next(), owner, fx.project.id(), "Second chat",
          null, Instant.now());
      store.createSession(second);
      Project other = new Project(Ids.next(), owner, "Other", "other",
          fx.root.resolve("greeter").toString(), Instant.now());
      store.createProject(other);
      ChatSession otherChat = new ChatSession(Ids.next(), owner, other.id(), "Other chat", null,
          Instant.now());
      store.createSession(otherChat);

      Map<String, Object> c = config("deleting", size[0], size[1], "light");
      c.put("prompt", PROMPT);
      JsonNode r = BrowserHarness.run(c);
      String at = size[0] + "x" + size[1];
      assertThat(r.get("status").asText()).isEqualTo("finished");
      assertThat(r.get("doomed").asText()).isEqualTo("Second chat");
      assertThat(r.get("otherBefore").asText()).isEqualTo("Second chat");
      JsonNode dialog = r.get("chatDialog");
      assertThat(dialog.get("modal").asBoolean()).as(at).isTrue();
      assertThat(dialog.get("inView").asBoolean()).as(at).isTrue();
      assertThat(dialog.get("focused").asText()).as("the safe choice has the focus")
          .isEqualTo("Cancel");
      assertThat(dialog.get("text").asText()).contains("“Second chat”", "cannot be undone");
      assertThat(texts(r.get("afterEscape").get("chats")))
          .containsExactly("Browser test", "Second chat");
      assertThat(r.get("afterEscape").get("drawerOpen").asBoolean())
          .as("%s: Escape closes the dialog, not the drawer", at).isEqualTo(size[0] < 700);
      assertThat(r.get("secondFocus").asText()).isEqualTo("Delete");
      assertThat(texts(r.get("afterChat").get("chats"))).containsExactly("Browser test");
      assertThat(r.get("afterChat").get("active").asText()).isEqualTo("Browser test");
      assertThat(r.get("afterChat").get("empty").asInt()).as("the next chat's empty state")
          .isEqualTo(1);
      assertThat(r.get("otherAfter").get("active").asText()).isEqualTo("Browser test");
      assertThat(r.get("otherAfter").get("turns").asInt()).isZero();
      assertThat(r.get("projectBefore").asText()).isEqualTo("Greeter");
      assertThat(r.get("projectDialog").get("text").asText())
          .contains("“Greeter”", "all its chats");
      assertThat(texts(r.get("afterProject").get("projects"))).containsExactly("Other");
      assertThat(r.get("afterProject").get("active").asText()).isEqualTo("Other chat");
      assertThat(r.get("afterProject").get("error").asText()).isEmpty();
      assertThat(r.get("otherAfterProject").asText()).isEqualTo("Other");

      assertThat(store.listProjects(owner)).containsExactly(other);
      assertThat(store.listSessions(owner, null)).containsExactly(otherChat);
      assertThat(store.findSession(second.id())).isEmpty();
      assertThat(store.findSession(fx.session.id())).isEmpty();
      assertThat(store.listTurns(second.id())).isEmpty();
    }
  }

  private static List<Integer> distinct(JsonNode rows) {
    List<Integer> out = new ArrayList<>();
    rows.forEach(n -> {
      if (!out.contains(n.asInt())) {
        out.add(n.asInt());
      }
    });
    return out;
  }

  private static List<String> texts(JsonNode a) {
    List<String> out = new ArrayList<>();
    a.forEach(n -> out.add(n.asText()));
    return out;
  }
}
