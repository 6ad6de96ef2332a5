package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.Recordings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseEventReaderTest {
  /** Every callback as text: {@code event(id,type,data)}, {@code retry(n)}, {@code comment(c)}. */
  private static List<String> read(List<String> pieces) {
    List<String> out = new ArrayList<>();
    SseEventReader r = new SseEventReader(10_000, new SseEventReader.Handler() {
      @Override
      public void onEvent(String id, String type, String data) {
        out.add("event(" + id + "," + type + "," + data + ")");
      }

      @Override
      public void onRetry(long millis) {
        out.add("retry(" + millis + ")");
      }

      @Override
      public void onComment(String comment) {
        out.add("comment(" + comment + ")");
      }
    });
    pieces.forEach(r::feed);
    r.finish();
    return out;
  }

  private static void assertEverySplit(String input, String... expected) {
    for (List<String> pieces : Chunks.stringSplittings(input)) {
      assertThat(read(pieces)).as("pieces %s", pieces).containsExactly(expected);
    }
  }

  @Test
  void dataEventsWithLfEndings() {
    assertEverySplit("data: one\n\ndata: two\n\n", "event(null,null,one)", "event(null,null,two)");
  }

  @Test
  void crlfAndBareCrEndLinesToo_andACrLfSplitAcrossReadsCountsOnce() {
    assertEverySplit("data: a\r\n\r\ndata: b\r\rdata: c\n\r\ndata: d\r\n\n",
        "event(null,null,a)", "event(null,null,b)", "event(null,null,c)", "event(null,null,d)");
  }

  @Test
  void commentsAreKeepAlivesNotEvents() {
    assertEverySplit(": OPENROUTER PROCESSING\n\n:\n\ndata: x\n\n",
        "comment( OPENROUTER PROCESSING)", "comment()", "event(null,null,x)");
  }

  @Test
  void eventIdAndRetryFields() {
    assertEverySplit("event: error\nid: 7\nretry: 2500\ndata: {}\n\ndata: next\n\n",
        "retry(2500)", "event(7,error,{})", "event(7,null,next)");
  }

  @Test
  void multiLineDataJoinsWithNewlines() {
    assertEverySplit("data: {\"a\":\ndata:  1}\ndata\n\n", "event(null,null,{\"a\":\n 1}\n)");
  }

  @Test
  void onlyOneLeadingSpaceIsStrippedAndUnknownFieldsAreIgnored() {
    assertEverySplit("data:x\nfoo: bar\n\ndata:  y\n\n", "event(null,null,x)",
        "event(null,null, y)");
  }

  @Test
  void anEventWithoutDataIsNotDispatched_andItsTypeDoesNotLeak() {
    assertEverySplit("event: ping\n\ndata: z\n\n", "event(null,null,z)");
  }

  @Test
  void anUnterminatedLastEventIsDispatchedAtTheEnd() {
    assertEverySplit("data: a\n\ndata: [DONE]", "event(null,null,a)", "event(null,null,[DONE])");
    assertEverySplit("data: a\n\ndata: [DONE]\n", "event(null,null,a)", "event(null,null,[DONE])");
  }

  @Test
  void aByteOrderMarkAtTheStartIsSkipped() {
    assertEverySplit("\uFEFFdata: a\n\n", "event(null,null,a)");
  }

  @Test
  void retryMustBeDigits() {
    assertEverySplit("retry: soon\nretry: 10\ndata: a\n\n", "retry(10)", "event(null,null,a)");
  }

  @Test
  void theRecordedFramingLiteralParsesAtEverySplit() {
    for (List<String> pieces : Chunks.stringSplittings(Recordings.SSE_FRAMING)) {
      List<String> events = read(pieces);
      assertThat(events).filteredOn(e -> e.startsWith("event")).hasSize(6);
      assertThat(events).contains("retry(3000)", "comment( keep-alive)", "comment(ping)");
      assertThat(events.get(events.size() - 1)).isEqualTo("event(2,null,[DONE])");
    }
  }

  @Test
  void anOversizedEventFailsClearly() {
    SseEventReader r = new SseEventReader(20, (id, type, data) -> { });
    r.feed("data: 0123456789\n\n");
    assertThatThrownBy(() -> r.feed("data: 0123456789\ndata: 0123456789\n"))
        .isInstanceOfSatisfying(LlmException.class,
            e -> assertThat(e.kind()).isEqualTo(LlmException.Kind.PROTOCOL));
    SseEventReader partial = new SseEventReader(20, (id, type, data) -> { });
    assertThatThrownBy(() -> partial.feed("data: 0123456789012345678901234"))
        .isInstanceOf(LlmException.class);
  }
}
