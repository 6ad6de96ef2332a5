package dev.gadget.core.agent.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolExamplesTest {
  private static final List<dev.gadget.core.llm.ToolDefinition> TOOLS = ToolCatalogTest.TOOLS;

  @Test
  void aToolIsFoundByTheWordsOfItsExamplesWhichItsDefinitionLacks() {
    String query = "thumbs up what Dana wrote";
    assertThat(ToolCatalog.of(TOOLS).search(query, 3)).extracting(ToolMatch::name)
        .doesNotContain("slack__post_message");
    ToolCatalog catalog = ToolCatalog.of(TOOLS, null, ToolExamples.byName(Map.of(
        "slack__post_message", List.of("tell the team in #general that the build is green",
            "thumbs up what Dana wrote in the channel"))));

    assertThat(catalog.search(query, 3)).extracting(ToolMatch::name)
        .first().isEqualTo("slack__post_message");
  }

  @Test
  void withoutExamplesARankingIsTheDefinitionsAlone() {
    ToolCatalog plain = ToolCatalog.of(TOOLS);
    ToolCatalog none = ToolCatalog.of(TOOLS, null, ToolExamples.NONE);
    ToolCatalog other = ToolCatalog.of(TOOLS, null, ToolExamples.byName(Map.of(
        "no_such_tool", List.of("open an issue"))));
    for (String q : List.of("open an issue on GitHub", "take a screenshot", "merge the PR")) {
      assertThat(none.search(q, 5)).isEqualTo(plain.search(q, 5));
      assertThat(other.search(q, 5)).isEqualTo(plain.search(q, 5));
    }
  }

  @Test
  void onlyTheFirstCharactersOfAToolsExamplesAreIndexed() {
    List<String> many = new ArrayList<>();
    while (String.join("\n", many).length() < ToolExamples.MAX_CHARS) {
      many.add("post a note to the channel about the release");
    }
    many.add("zeppelin");
    ToolCatalog catalog = ToolCatalog.of(TOOLS, null, ToolExamples.byName(Map.of(
        "slack__post_message", many)));

    assertThat(catalog.search("zeppelin", 3)).isEmpty();
  }

  @Test
  void byNameRefusesAMissingList() {
    Map<String, List<String>> withNull = new HashMap<>();
    withNull.put("slack__post_message", null);
    assertThatThrownBy(() -> ToolExamples.byName(withNull))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("examples of slack__post_message");
  }
}
