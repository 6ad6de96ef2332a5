package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.SessionContextTest.tool;
import static dev.gadget.core.server.internal.SessionContextTest.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.SessionContext;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A long session's work order: within its bound, whole turns, the first prompt kept. */
class HistoryBoundTest {
  private static List<ChatMessage> session(int turns) {
    List<ChatTurn> history = new ArrayList<>();
    for (int i = 0; i < turns; i++) {
      history.add(turn("t" + i, i, TurnStatus.FINISHED, null, List.of(
          new TurnBlock.Responding(0, SessionContextTest.T, "Reading " + i + "."),
          tool(1, "c" + i, "x".repeat(9_000)),
          new TurnBlock.Responding(2, SessionContextTest.T, "Done " + i + "."))));
    }
    return SessionContext.of(history, id -> null);
  }

  private static long chars(List<ChatMessage> messages) {
    return messages.stream().mapToLong(m -> m.content().length()).sum();
  }

  @Test
  void aShortSessionIsCarriedWhole() {
    List<ChatMessage> all = session(5);
    assertThat(HistoryBound.of(all, 100_000)).isSameAs(all);
  }

  @Test
  void aLongSessionKeepsItsFirstPromptANoteAndTheNewestWholeTurnsThatFit() {
    List<ChatMessage> all = session(40); // about 360,000 characters of tool results
    List<ChatMessage> bounded = HistoryBound.of(all, 100_000);

    assertThat(chars(bounded)).isLessThanOrEqualTo(100_000 + 1_000);
    assertThat(bounded.get(0).content()).isEqualTo("prompt t0");
    assertThat(bounded.get(1).role()).isEqualTo(Role.USER);
    assertThat(bounded.get(1).content()).startsWith("[The replies to the first prompt and the ")
        .contains("turns after it are left out here");
    // the newest turn is there, last; whole turns from some point on, in order
    assertThat(bounded.get(bounded.size() - 1).content()).isEqualTo("Done 39.");
    assertThat(bounded.get(2).content()).startsWith("prompt t");
    int first = Integer.parseInt(bounded.get(2).content().substring("prompt t".length()));
    assertThat(first).isGreaterThan(1).isLessThan(39);
    assertThat(bounded).hasSize(2 + (40 - first) * 4);
    // every tool result has its call right before it
    Set<String> called = new HashSet<>();
    for (ChatMessage m : bounded) {
      m.toolCalls().forEach(c -> called.add(c.callId()));
      if (m.role() == Role.TOOL) {
        assertThat(called).contains(m.toolCallId());
      }
    }
  }

  @Test
  void theLastTurnStaysEvenWhenItAloneIsOverTheBound() {
    List<ChatMessage> all = session(3);
    List<ChatMessage> bounded = HistoryBound.of(all, 5_000);
    assertThat(bounded.get(0).content()).isEqualTo("prompt t0");
    assertThat(bounded.get(2).content()).isEqualTo("prompt t2");
    assertThat(bounded).hasSize(2 + 4);
  }
}
