package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.llm.LlmException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NdjsonLineReaderTest {
  private static List<String> read(List<String> pieces) {
    List<String> lines = new ArrayList<>();
    NdjsonLineReader r = new NdjsonLineReader(1000, lines::add);
    pieces.forEach(r::feed);
    r.finish();
    return lines;
  }

  @Test
  void aReadBoundaryIsNeverALineBoundary() {
    String input = "{\"a\":1}\n{\"b\":\"x y\"}\r\n\n  \n{\"c\":3}\n";
    for (List<String> pieces : Chunks.stringSplittings(input)) {
      assertThat(read(pieces)).as("pieces %s", pieces)
          .containsExactly("{\"a\":1}", "{\"b\":\"x y\"}", "{\"c\":3}");
    }
  }

  @Test
  void anUnterminatedLastLineIsHandedOnAtTheEnd() {
    for (List<String> pieces : Chunks.stringSplittings("{\"a\":1}\n{\"b\":2}")) {
      assertThat(read(pieces)).containsExactly("{\"a\":1}", "{\"b\":2}");
    }
  }

  @Test
  void nothingIsHandedOnBeforeItsNewline() {
    List<String> lines = new ArrayList<>();
    NdjsonLineReader r = new NdjsonLineReader(1000, lines::add);
    r.feed("{\"a\":");
    assertThat(lines).isEmpty();
    r.feed("1}");
    assertThat(lines).isEmpty();
    r.feed("\n");
    assertThat(lines).containsExactly("{\"a\":1}");
  }

  @Test
  void anOversizedLineFailsClearly() {
    NdjsonLineReader r = new NdjsonLineReader(10, l -> { });
    r.feed("0123456789\n");
    assertThatThrownBy(() -> r.feed("0123456789X"))
        .isInstanceOfSatisfying(LlmException.class,
            e -> assertThat(e.kind()).isEqualTo(LlmException.Kind.PROTOCOL))
        .hasMessageContaining("longer than 10");
  }
}
