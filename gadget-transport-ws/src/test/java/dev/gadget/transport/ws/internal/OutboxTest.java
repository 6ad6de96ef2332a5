package dev.gadget.transport.ws.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reading thread's outbox: what it holds, when it lets go, and a failing flush. */
class OutboxTest {
  @Test
  void holdsOnlyBetweenHoldAndReleaseAndFlushesEachSessionOnce() {
    List<String> flushed = new ArrayList<>();
    Outbox.Held a = scratch -> flushed.add("a");
    assertThat(Outbox.defer(a, false)).as("not holding: written at once").isFalse();
    Outbox.hold();
    assertThat(Outbox.defer(a, false)).isTrue();
    assertThat(Outbox.defer(a, true)).as("already registered").isTrue();
    assertThat(flushed).isEmpty();
    Outbox.release();
    assertThat(flushed).containsExactly("a");
    assertThat(Outbox.defer(a, false)).as("released: written at once again").isFalse();
  }

  @Test
  void aFailingFlushLeavesNoOtherSessionsFramesBehind() {
    List<String> flushed = new ArrayList<>();
    Outbox.hold();
    Outbox.defer(scratch -> {
      throw new IllegalStateException("broken");
    }, false);
    Outbox.defer(scratch -> flushed.add("b " + scratch.capacity()), false);
    assertThatThrownBy(Outbox::release).hasMessage("broken");
    assertThat(flushed).containsExactly("b " + Outbox.SCRATCH_BYTES);
    Outbox.hold();
    Outbox.release(); // nothing left from before
    assertThat(flushed).hasSize(1);
  }
}
