package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Events kept in chunks come back as they went in, in order, across chunks and sizes. */
class KeptEventsTest {
  private static List<String> all(KeptEvents kept) {
    List<String> out = new ArrayList<>();
    kept.forEach((number, feed, event, json) -> out.add(number + "|" + feed + "|" + event + "|"
        + json));
    return out;
  }

  @Test
  void eventsComeBackInOrderWithTheirFeedOrNone() {
    KeptEvents kept = new KeptEvents();
    kept.add(0, "session:s1", "turnStarted", "{\"turn\":{}}");
    kept.add(1, null, "response", "{\"token\":\"é😀\"}");
    kept.add(2, null, "", "");
    assertThat(kept.size()).isEqualTo(3);
    assertThat(all(kept)).containsExactly("0|session:s1|turnStarted|{\"turn\":{}}",
        "1|null|response|{\"token\":\"é😀\"}", "2|null||");
  }

  @Test
  void manyEventsSpanChunksAndOneLargerThanAChunkIsKeptWhole() {
    KeptEvents kept = new KeptEvents();
    List<String> expected = new ArrayList<>();
    String big = "x".repeat(KeptEvents.CHUNK_CHARS + 17);
    for (int i = 0; i < 5_000; i++) {
      String json = i == 2_500 ? big : "{\"seq\":" + i + ",\"token\":\"" + "t".repeat(i % 50)
          + "\"}";
      kept.add(i, null, i % 2 == 0 ? "response" : "thinking", json);
      expected.add(i + "|null|" + (i % 2 == 0 ? "response" : "thinking") + "|" + json);
    }
    assertThat(kept.size()).isEqualTo(5_000);
    assertThat(all(kept)).containsExactlyElementsOf(expected);
  }

  @Test
  void clearedItKeepsNothingAndTakesNewEvents() {
    KeptEvents kept = new KeptEvents();
    for (int i = 0; i < 100; i++) {
      kept.add(i, null, "response", "{}");
    }
    kept.clear();
    assertThat(kept.size()).isZero();
    assertThat(all(kept)).isEmpty();
    kept.add(7, "f", "e", "j");
    assertThat(all(kept)).containsExactly("7|f|e|j");
  }

  @Test
  void aChunkGivenBackAndTakenByAnotherDoesNotChangeWhatEitherKeepsNow() {
    KeptEvents first = new KeptEvents();
    KeptEvents second = new KeptEvents();
    first.add(1, null, "response", "{\"token\":\"first\"}");
    first.clear(); // its chunk goes to the pool, and the next one taken may be it
    second.add(2, null, "response", "{\"token\":\"second\"}");
    first.add(3, null, "thinking", "{\"token\":\"again\"}");
    assertThat(all(second)).containsExactly("2|null|response|{\"token\":\"second\"}");
    assertThat(all(first)).containsExactly("3|null|thinking|{\"token\":\"again\"}");
  }
}
