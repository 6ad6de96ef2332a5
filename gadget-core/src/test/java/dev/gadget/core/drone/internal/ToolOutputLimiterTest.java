package dev.gadget.core.drone.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The live output's bounds, on literal input with a made-up clock. */
class ToolOutputLimiterTest {
  private static final long MS = 1_000_000L;

  @Test
  void theFirstOutputGoesAtOnceAndLaterOnesAtMostEveryInterval() {
    ToolOutputLimiter l = new ToolOutputLimiter();
    l.add("line1\n");
    assertThat(l.take(0, false)).isEqualTo("line1\n");
    l.add("line2\n");
    assertThat(l.take(50 * MS, false)).as("too soon").isNull();
    assertThat(l.delay(50 * MS)).isEqualTo(50 * MS);
    l.add("line3\n");
    assertThat(l.take(100 * MS, false)).isEqualTo("line2\nline3\n");
    assertThat(l.pending()).isFalse();
    assertThat(l.take(500 * MS, false)).isNull();
  }

  @Test
  void theLastTakeDoesNotWait() {
    ToolOutputLimiter l = new ToolOutputLimiter();
    l.add("a");
    l.take(0, false);
    l.add("b");
    assertThat(l.take(1 * MS, true)).isEqualTo("b");
  }

  @Test
  void aFloodIsBoundedPerSecondAndInTotalAndSaysWhatItLeftOut() {
    ToolOutputLimiter l = new ToolOutputLimiter();
    String kilo = "x".repeat(999) + "\n";
    List<String> sent = new ArrayList<>();
    long now = 0;
    // 10 MB printed in 10 s, a kilobyte a millisecond, taken as soon as allowed
    for (int ms = 0; ms < 10_000; ms++) {
      now = ms * MS;
      l.add(kilo);
      String out = l.take(now, false);
      if (out != null) {
        sent.add(out);
      }
    }
    String last = l.take(now, true);
    if (last != null) {
      sent.add(last);
    }
    long chars = sent.stream().mapToLong(s -> s.replaceAll("\\n\\[…[^\\]]*\\]\\n", "").length())
        .sum();
    assertThat(chars).isEqualTo(ToolOutputLimiter.MAX_TOTAL);
    // per second: at most 10 events of 1,600 characters (notes aside)
    assertThat(sent.size()).isLessThanOrEqualTo(ToolOutputLimiter.MAX_TOTAL
        / ToolOutputLimiter.MAX_CHUNK + 1);
    assertThat(sent.get(1)).contains("characters of output not shown live");
    assertThat(sent.get(sent.size() - 1)).endsWith(ToolOutputLimiter.STOPPED);
    l.add("more");
    assertThat(l.pending()).isFalse();
    assertThat(l.take(now + 1_000 * MS, true)).isNull();
  }

  @Test
  void eventsAreAtMostTenASecond() {
    ToolOutputLimiter l = new ToolOutputLimiter();
    int events = 0;
    for (int ms = 0; ms < 1_000; ms++) {
      l.add("y");
      if (l.take(ms * MS, false) != null) {
        events++;
      }
    }
    assertThat(events).isEqualTo(10);
  }
}
