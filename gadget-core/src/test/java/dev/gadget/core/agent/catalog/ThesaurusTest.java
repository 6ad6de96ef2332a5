package dev.gadget.core.agent.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ThesaurusTest {
  private static final Thesaurus TABLE = Thesaurus.parse(List.of(
      "# a comment",
      "",
      "nuke, wipe out => delete drop",
      "tear down => cleanup remove",
      "thumbs up => reaction"), "test table");

  @Test
  void aWordStandsForTheStemsOnItsRightOneWayOnly() {
    assertThat(TABLE.of("nuk")).containsExactly("delet", "drop");
    assertThat(TABLE.of("delet")).isEmpty(); // the right side does not stand for the left
  }

  @Test
  void phrasesMatchWordByWordOnStemsWithStopWordsKept() {
    assertThat(TABLE.phrases("Tearing down the staging cluster")).containsExactly(
        List.of("cleanup", "remov"));
    assertThat(TABLE.phrases("thumbs-up what Dana posted")).containsExactly(List.of("react"));
    assertThat(TABLE.phrases("wipe out the cache and tear down the VM")).containsExactly(
        List.of("delet", "drop"), List.of("cleanup", "remov"));
    assertThat(TABLE.phrases("tear the page down")).isEmpty();
    assertThat(TABLE.phrases("tear")).isEmpty();
  }

  @Test
  void aMalformedLineIsRefusedWithItsNumber() {
    assertThatThrownBy(() -> Thesaurus.parse(List.of("# ok", "nuke delete"), "t.txt"))
        .hasMessage("t.txt line 2: expected \"words, phrase => words\", got \"nuke delete\"");
    assertThatThrownBy(() -> Thesaurus.parse(List.of("nuke =>"), "t.txt"))
        .hasMessageContaining("line 1");
  }

  @Test
  void theShippedTableLoadsAndHelpsAToolWithNoWordInCommonWithTheRequest() {
    assertThat(Thesaurus.DEFAULT.of(Tokenizer.stem("nuke"))).isNotEmpty();
    ToolCatalog catalog = ToolCatalog.of(List.of(
        ToolCatalogTest.tool("db__drop_database", "Removes a database and all its data",
            "{\"type\":\"object\"}"),
        ToolCatalogTest.tool("db__list_databases", "Lists the databases of the server",
            "{\"type\":\"object\"}")));
    assertThat(catalog.search("nuke the staging db", 1)).extracting(ToolMatch::name)
        .containsExactly("db__drop_database");
  }
}
