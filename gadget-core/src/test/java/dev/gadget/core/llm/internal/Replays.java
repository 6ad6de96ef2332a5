package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.Recordings;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/**
 * Replays one recorded stream through a parser whole, one byte at a time, cut into two pieces at
 * every byte and in random splits, and checks that every replay gives the same result: the same
 * events in the same order, and the same completion, or the same error and partial reply.
 */
final class Replays {
  private Replays() {}

  /** The result of the whole stream, after checking that every other splitting agrees with it. */
  static ParseRun identicalForEverySplit(String recording,
      Function<List<byte[]>, ParseRun> parser) {
    byte[] bytes = Recordings.load(recording).getBytes(StandardCharsets.UTF_8);
    List<List<byte[]>> splittings = Chunks.splittings(bytes, 40);
    ParseRun whole = parser.apply(splittings.get(0));
    for (List<byte[]> pieces : splittings.subList(1, splittings.size())) {
      ParseRun run = parser.apply(pieces);
      String where = recording + " in " + pieces.size() + " pieces";
      assertThat(run.events).as(where).isEqualTo(whole.events);
      assertThat(run.text.toString()).as(where).isEqualTo(whole.text.toString());
      assertThat(run.thinking.toString()).as(where).isEqualTo(whole.thinking.toString());
      assertThat(run.calls).as(where).isEqualTo(whole.calls);
      assertThat(run.completion).as(where).isEqualTo(whole.completion);
      assertThat(run.partial).as(where).isEqualTo(whole.partial);
      if (whole.error == null) {
        assertThat(run.error).as(where).isNull();
      } else {
        assertThat(run.error).as(where).isNotNull();
        assertThat(run.error.kind()).as(where).isEqualTo(whole.error.kind());
        assertThat(run.error.getMessage()).as(where).isEqualTo(whole.error.getMessage());
        assertThat(run.error.providerType()).as(where).isEqualTo(whole.error.providerType());
        assertThat(run.error.isRetryable()).as(where).isEqualTo(whole.error.isRetryable());
      }
    }
    if (whole.error == null) {
      assertThat(whole.thinking.toString()).isEqualTo(whole.completion.thinking());
      assertThat(whole.text.toString()).isEqualTo(whole.completion.text());
      assertThat(whole.calls).isEqualTo(whole.completion.toolCalls());
    }
    return whole;
  }
}
