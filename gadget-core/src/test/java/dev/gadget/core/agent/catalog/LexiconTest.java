package dev.gadget.core.agent.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LexiconTest {
  private static float weight(String word, String related) {
    String to = Tokenizer.stem(related);
    return Lexicon.of(Tokenizer.stem(word)).stream().filter(r -> r.stem().equals(to))
        .map(Lexicon.Related::weight).findFirst().orElse(0f);
  }

  @Test
  void theCommittedResourceLoadsAndRelatesWordsByKind() {
    assertThat(Lexicon.size()).isGreaterThan(10_000);
    assertThat(weight("reaction", "react")).isEqualTo(Lexicon.DERIVED);
    assertThat(weight("creation", "create")).isEqualTo(Lexicon.DERIVED);
    assertThat(weight("deploy", "deployment")).isEqualTo(Lexicon.DERIVED);
    assertThat(weight("wrote", "write")).isEqualTo(Lexicon.INFLECTED);
    assertThat(weight("remark", "comment")).isEqualTo(Lexicon.SYNONYM);
    assertThat(weight("cafe", "restaurant")).isEqualTo(Lexicon.HYPERNYM);
    assertThat(Lexicon.of("no-such-word")).isEmpty();
    // every kind weighs less than the word itself
    assertThat(List.of(Lexicon.SYNONYM, Lexicon.HYPERNYM, Lexicon.DERIVED, Lexicon.INFLECTED))
        .allSatisfy(w -> assertThat(w).isLessThan(1f));
  }

  @Test
  void parsesStemsAndKeepsAStemsHighestWeight() throws IOException {
    Map<String, List<Lexicon.Related>> map = Lexicon.parse(new BufferedReader(new StringReader(
        "folders\tdirectory,folder\tcontainer\tfold\t\n"
            + "went\t\t\t\tgo\n")));
    // "folders" and "folder" share a stem: not related to itself
    assertThat(map.get(Tokenizer.stem("folder"))).containsExactly(
        new Lexicon.Related(Tokenizer.stem("directory"), Lexicon.SYNONYM),
        new Lexicon.Related(Tokenizer.stem("container"), Lexicon.HYPERNYM),
        new Lexicon.Related(Tokenizer.stem("fold"), Lexicon.DERIVED));
    assertThat(map.get("went")).containsExactly(new Lexicon.Related("go", Lexicon.INFLECTED));
  }

  @Test
  void aLineOverTheBoundIsRefusedAndAMissingResourceLeavesSearchWithoutIt() {
    String longLine = "word\t" + "x,".repeat(3_000);
    assertThatThrownBy(() -> Lexicon.parse(new BufferedReader(new StringReader(longLine))))
        .isInstanceOf(IOException.class).hasMessageContaining("past the lexicon's bounds");
    assertThat(Lexicon.load("no-such-lexicon.txt.gz")).isEmpty();
    assertThat(Lexicon.load("Lexicon.class")).isEmpty(); // not gzip: logged, empty
  }
}
