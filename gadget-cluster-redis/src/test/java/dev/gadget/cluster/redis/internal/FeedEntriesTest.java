package dev.gadget.cluster.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.Cluster.FeedAppend;
import dev.gadget.core.spi.Cluster.FeedEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Packing a feed's events into bounded stream entries and reading them back, on literals. */
class FeedEntriesTest {
  private static List<FeedAppend> run(int n, int chars) {
    List<FeedAppend> run = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      run.add(new FeedAppend("t", 10 + i, "response", "x".repeat(chars)));
    }
    return run;
  }

  private static Map<String, String> body(Object[] fields) {
    Map<String, String> body = new LinkedHashMap<>();
    for (int i = 0; i < fields.length; i += 2) {
      body.put((String) fields[i], (String) fields[i + 1]);
    }
    return body;
  }

  @Test
  void aRunIsOneEntryIdentifiedByItsLastEvent() {
    List<FeedEntries.Entry> entries = FeedEntries.pack(List.of(
        new FeedAppend("t", 3, "response", "{\"t\":\"a\"}"),
        new FeedAppend("t", 4, "toolCall", "{}")));
    assertThat(entries).hasSize(1);
    FeedEntries.Entry e = entries.get(0);
    assertThat(e.lastSeq()).isEqualTo(4);
    assertThat(e.from()).isZero();
    assertThat(e.to()).isEqualTo(2);
    assertThat(e.body()).containsExactly("3 response", "{\"t\":\"a\"}", "4 toolCall", "{}");
    assertThat(Keys.feedId(e.lastSeq())).isEqualTo("0-5");
  }

  @Test
  void aLongRunIsSplitByCountAndBySize() {
    List<FeedEntries.Entry> byCount = FeedEntries.pack(run(FeedEntries.MAX_EVENTS * 2 + 1, 1));
    assertThat(byCount).extracting(FeedEntries.Entry::to)
        .containsExactly(FeedEntries.MAX_EVENTS, FeedEntries.MAX_EVENTS * 2,
            FeedEntries.MAX_EVENTS * 2 + 1);
    int third = Cluster.MAX_MESSAGE_CHARS / 3;
    List<FeedEntries.Entry> bySize = FeedEntries.pack(run(4, third));
    assertThat(bySize).extracting(FeedEntries.Entry::to).containsExactly(2, 4);
    for (FeedEntries.Entry e : bySize) {
      long chars = 0;
      for (Object f : e.body()) {
        chars += ((String) f).length();
      }
      assertThat(chars).isLessThanOrEqualTo(Cluster.MAX_MESSAGE_CHARS);
    }
    // an event at the bound goes alone
    List<FeedEntries.Entry> big = FeedEntries.pack(List.of(
        new FeedAppend("t", 0, "response", "1"),
        new FeedAppend("t", 1, "response", "x".repeat(Cluster.MAX_MESSAGE_CHARS)),
        new FeedAppend("t", 2, "response", "2")));
    assertThat(big).extracting(FeedEntries.Entry::lastSeq).containsExactly(0L, 1L, 2L);
  }

  @Test
  void readingBackDropsWhatTheReaderHasAndKeepsTheOrder() {
    Object[] fields = FeedEntries.pack(List.of(
        new FeedAppend("t", 3, "response", "\"a\""),
        new FeedAppend("t", 4, "response", "\"b\""),
        new FeedAppend("t", 9, "turn stats", "\"c\""))).get(0).body();
    assertThat(FeedEntries.unpack(body(fields), 3)).containsExactly(
        new FeedEvent(4, "response", "\"b\""), new FeedEvent(9, "turn stats", "\"c\""));
    assertThat(FeedEntries.unpack(body(fields), 9)).isEmpty();
    Map<String, String> unordered = new HashMap<>();
    for (int i = 40; i >= 0; i--) {
      unordered.put(i + " response", String.valueOf(i));
    }
    unordered.put("e", "an entry of an older layout");
    List<FeedEvent> back = FeedEntries.unpack(unordered, -1);
    assertThat(back).hasSize(41);
    assertThat(back).extracting(FeedEvent::seq).isSorted();
  }

  @Test
  void eventsReadBackShareOneStringPerNameAndTheNamesKeptAreBounded() {
    List<FeedEvent> read = FeedEntries.unpack(body(new Object[] {
        "1 response", "{}", "2 response", "{}"}), -1);
    List<FeedEvent> again = FeedEntries.unpack(body(new Object[] {"3 response", "{}"}), -1);
    assertThat(read.get(0).event()).isSameAs(read.get(1).event()).isSameAs(again.get(0).event())
        .isEqualTo("response");
    for (int i = 0; i < 300; i++) {
      FeedEntries.name("made-up-" + i);
    }
    String late = new String("late-name-" + System.nanoTime());
    assertThat(FeedEntries.name(late)).as("past the bound a name is not kept").isSameAs(late);
    assertThat(FeedEntries.name(new String(late))).isNotSameAs(late);
  }
}
