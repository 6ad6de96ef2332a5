package dev.gadget.core.agent.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.ToolDefinition;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolCatalogTest {
  static ToolDefinition tool(String name, String description, String schema) {
    try {
      JsonNode params = GadgetJson.mapper().readTree(schema);
      return new ToolDefinition(name, description, params);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static final String REPO = "{\"type\":\"object\",\"properties\":{\"owner\":{\"type\":\"string\","
      + "\"description\":\"Repository owner\"},\"repo\":{\"type\":\"string\",\"description\":"
      + "\"Repository name\"}}}";

  static final List<ToolDefinition> TOOLS = List.of(
      tool("github__create_issue", "Create a new issue in a GitHub repository", REPO),
      tool("github__list_issues", "List issues in a GitHub repository with filtering options",
          REPO),
      tool("github__create_pull_request", "Create a new pull request in a GitHub repository",
          REPO),
      tool("github__merge_pull_request", "Merge a pull request", REPO),
      tool("slack__post_message", "Post a new message to a Slack channel",
          "{\"type\":\"object\",\"properties\":{\"channel_id\":{\"type\":\"string\","
              + "\"description\":\"The ID of the channel to post to\"},\"text\":{\"type\":"
              + "\"string\",\"description\":\"The message text to post\"}}}"),
      tool("playwright__browser_take_screenshot", "Take a screenshot of the current page",
          "{\"type\":\"object\",\"properties\":{\"fullPage\":{\"type\":\"boolean\"}}}"),
      tool("memory__create_entities", "Create multiple new entities in the knowledge graph",
          "{\"type\":\"object\"}"),
      tool("read_file", "Reads a file of the project", "{\"type\":\"object\"}"));

  @Test
  void splitsSnakeAndCamelCaseLowercasesAndDropsCommonWords() {
    assertThat(Tokenizer.terms("github__create_issue")).containsExactly("github", "creat",
        "issu");
    assertThat(Tokenizer.terms("takeScreenshot HTTPServer fullPage"))
        .containsExactly("tak", "screenshot", "http", "server", "full", "pag");
    assertThat(Tokenizer.terms("Please open a ticket in the tracker")).containsExactly("open",
        "ticket", "tracker");
    assertThat(Tokenizer.terms("list-dir, s3://bucket")).containsExactly("list", "dir", "s3",
        "bucket");
  }

  @Test
  void stemsPluralsIngAndEdAlike() {
    assertThat(List.of("issues", "issue")).allSatisfy(w ->
        assertThat(Tokenizer.stem(w)).isEqualTo("issu"));
    assertThat(List.of("create", "created", "creating", "creates")).allSatisfy(w ->
        assertThat(Tokenizer.stem(w)).isEqualTo("creat"));
    assertThat(List.of("run", "runs", "running")).allSatisfy(w ->
        assertThat(Tokenizer.stem(w)).isEqualTo("run"));
    assertThat(List.of("entries", "entry")).allSatisfy(w ->
        assertThat(Tokenizer.stem(w)).isEqualTo("entry"));
    assertThat(List.of("branches", "branch")).allSatisfy(w ->
        assertThat(Tokenizer.stem(w)).isEqualTo("branch"));
    assertThat(List.of("stopped", "stop")).allSatisfy(w ->
        assertThat(Tokenizer.stem(w)).isEqualTo("stop"));
    assertThat(Tokenizer.stem("status")).isEqualTo("status");
    assertThat(Tokenizer.stem("process")).isEqualTo("process");
  }

  @Test
  void stemsTionSionAndMentToTheirVerb() {
    assertThat(Tokenizer.stem("compression")).isEqualTo(Tokenizer.stem("compress"));
    assertThat(Tokenizer.stem("connection")).isEqualTo(Tokenizer.stem("connect"));
    assertThat(Tokenizer.stem("deployment")).isEqualTo(Tokenizer.stem("deploy"));
    assertThat(Tokenizer.stem("creation")).isEqualTo(Tokenizer.stem("create"));
    assertThat(Tokenizer.stem("option")).isEqualTo("option"); // too short to cut
  }

  @Test
  void anOrdinaryWordNamesAToolOnlyWhenItIsTheWholeQuery() {
    ToolCatalog catalog = ToolCatalog.of(List.of(
        tool("mongodb__find", "Run a find query against a MongoDB collection", "{}"),
        tool("github__search_users", "Search for users on GitHub", "{}")));
    assertThat(names(catalog.search("find the github user named torvalds", 2)).get(0))
        .isEqualTo("github__search_users");
    assertThat(catalog.search("find", 1).get(0).similarity()).isEqualTo(1.0);
    assertThat(catalog.search("call search_users now", 1).get(0).similarity()).isEqualTo(1.0);
  }

  @Test
  void aWordCountsOnceHoweverManyOfItsSynonymsATextHas() {
    ToolCatalog catalog = ToolCatalog.of(List.of(
        tool("a__widget", "Create a widget", "{}"),
        tool("b__widget_factory", "Create, add, insert or start a widget", "{}"),
        tool("c__gadget", "Create, add, insert or start a gadget", "{}")));
    // "make" stands for create, add, insert and start: b has four, a one; summed, b would win
    assertThat(names(catalog.search("make widget", 2)).get(0)).isEqualTo("a__widget");
  }

  @Test
  void phrasesAndFileNamesSayWhatIsAsked() {
    ToolCatalog catalog = ToolCatalog.of(List.of(
        tool("mongodb__insert-many", "Insert an array of documents into a collection", "{}"),
        tool("mongodb__count", "Gets the number of documents in a collection", "{}"),
        tool("mongodb__rename-collection", "Renames a collection", "{}"),
        tool("fs__move_file", "Move or rename files and directories", "{}")));
    assertThat(names(catalog.search("how many documents are in orders", 1)))
        .containsExactly("mongodb__count");
    assertThat(names(catalog.search("rename report.txt to old.txt", 1)))
        .containsExactly("fs__move_file");
  }

  @Test
  void ranksByWhatTheUserAsksNameAboveDescription() {
    ToolCatalog catalog = ToolCatalog.of(TOOLS);
    assertThat(names(catalog.search("open a new issue about the crash", 3)).get(0))
        .isEqualTo("github__create_issue");
    assertThat(names(catalog.search("merge my pull requests", 2)))
        .containsExactly("github__merge_pull_request", "github__create_pull_request");
    assertThat(names(catalog.search("screenshot of the page", 1)))
        .containsExactly("playwright__browser_take_screenshot");
    // "channel" is only in a parameter's description: still found
    assertThat(names(catalog.search("send something to a channel", 1)))
        .containsExactly("slack__post_message");
  }

  @Test
  void aToolsNameFindsItFirstWithSimilarityOne() {
    ToolCatalog catalog = ToolCatalog.of(TOOLS);
    List<ToolMatch> byName = catalog.search("github__merge_pull_request", 2);
    assertThat(byName.get(0).name()).isEqualTo("github__merge_pull_request");
    assertThat(byName.get(0).similarity()).isEqualTo(1.0);
    assertThat(catalog.search("post_message", 1).get(0).name()).isEqualTo("slack__post_message");
  }

  @Test
  void similarityIsTheShareOfTheQueryTheToolCovers() {
    ToolCatalog catalog = ToolCatalog.of(TOOLS);
    ToolMatch all = catalog.search("create issue", 1).get(0);
    assertThat(all.name()).isEqualTo("github__create_issue");
    assertThat(all.similarity()).isEqualTo(1.0);
    ToolMatch part = catalog.search("create issue quantum teleporter", 1).get(0);
    assertThat(part.name()).isEqualTo("github__create_issue");
    assertThat(part.similarity()).isBetween(0.05, 0.6);
    assertThat(catalog.search("quantum teleporter", 5)).isEmpty();
  }

  @Test
  void searchesOnlyTheToolsTheFilterAccepts() {
    ToolCatalog catalog = ToolCatalog.of(TOOLS);
    assertThat(names(catalog.search("create issue", 3, n -> !n.equals("github__create_issue"))))
        .doesNotContain("github__create_issue").isNotEmpty();
    assertThat(catalog.search("read_file", 3, n -> !n.equals("read_file")))
        .extracting(ToolMatch::name).doesNotContain("read_file");
  }

  @Test
  void summariesAreTheFirstSentenceOnOneLine() {
    assertThat(ToolCatalog.summary("Create a new issue in a repository.\n  Use it when the user "
        + "asks. Arguments follow.")).isEqualTo("Create a new issue in a repository.");
    assertThat(ToolCatalog.summary("x".repeat(400))).hasSize(ToolCatalog.SUMMARY_LENGTH)
        .endsWith("…");
  }

  @Test
  void refusesTwoToolsOfOneName() {
    assertThatThrownBy(() -> ToolCatalog.of(List.of(TOOLS.get(0), TOOLS.get(0))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("github__create_issue");
    ToolCatalog cased = ToolCatalog.of(List.of(tool("getUser", "Gets a user", "{}"),
        tool("getuser", "Gets a user too", "{}"), tool("Echo", "Echoes", "{}")));
    assertThat(cased.get("getuser").orElseThrow().description()).isEqualTo("Gets a user too");
    assertThat(cased.get("GETUSER")).isEmpty(); // two tools so named: neither
    assertThat(cased.get("echo").orElseThrow().name()).isEqualTo("Echo");
    assertThatThrownBy(() -> ToolCatalog.of(TOOLS).search("x", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void deferralReadsWordsAndShares() {
    assertThat(ToolDeferral.parse("always")).isEqualTo(ToolDeferral.ALWAYS);
    assertThat(ToolDeferral.parse("NEVER")).isEqualTo(ToolDeferral.NEVER);
    assertThat(ToolDeferral.parse("auto")).isEqualTo(ToolDeferral.DEFAULT);
    assertThat(ToolDeferral.parse("25%").share()).isEqualTo(0.25);
    assertThat(ToolDeferral.parse("0.05").share()).isEqualTo(0.05);
    assertThatThrownBy(() -> ToolDeferral.parse("lots"))
        .hasMessageContaining("always, never, auto or a share");
    assertThatThrownBy(() -> ToolDeferral.parse("150%")).hasMessageContaining("from 0 to 1");
  }

  @Test
  void defersWhenTheDefinitionsPassTheShareOfTheBudget() {
    assertThat(ToolDeferral.DEFAULT.defers(3_201, 32_000, 5)).isTrue();
    assertThat(ToolDeferral.DEFAULT.defers(3_200, 32_000, 5)).isFalse();
    assertThat(ToolDeferral.DEFAULT.defers(90_000, 32_000, 0)).isFalse();
    assertThat(ToolDeferral.ALWAYS.defers(1, 32_000, 1)).isTrue();
    assertThat(ToolDeferral.NEVER.defers(90_000, 32_000, 5)).isFalse();
  }

  private static List<String> names(List<ToolMatch> matches) {
    return matches.stream().map(ToolMatch::name).toList();
  }
}
