package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.SessionContext;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The work order's context as the model saw the session's turns. */
class SessionContextTest {
  static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  static final ChatMessage.Author ADA = new ChatMessage.Author("u1", "ada", "Ada L.");

  static ChatTurn turn(String id, long seq, TurnStatus status, String error,
      List<TurnBlock> blocks) {
    return new ChatTurn(id, "s1", "u1", seq, status, "prompt " + id, "build", blocks, List.of(),
        TurnStats.EMPTY, T, T, error, null);
  }

  static TurnBlock.Tool tool(int seq, String id, String response) {
    return new TurnBlock.Tool(seq, T, new ToolCall(id, "read_file", "{\"path\":\"a\"}", response));
  }

  @Test
  void eachRoundIsAnAssistantMessageWithItsCallsThenTheirResultsPairedById() {
    ChatTurn t = turn("t1", 0, TurnStatus.FINISHED, null, List.of(
        new TurnBlock.Thinking(0, T, "Look first."),
        new TurnBlock.Responding(1, T, "Reading."),
        tool(2, "c1", "A"),
        tool(3, "c2", "B"),
        new TurnBlock.Responding(4, T, "half", true), // superseded: left out
        new TurnBlock.Thinking(5, T, "Now I know."),
        new TurnBlock.Responding(6, T, "Part one."),
        new TurnBlock.Thinking(7, T, "More."),
        new TurnBlock.Responding(8, T, "Part two.")));
    List<ChatMessage> m = SessionContext.of(List.of(t), Map.of("u1", ADA)::get);

    assertThat(m).extracting(ChatMessage::role).containsExactly(
        Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT);
    assertThat(m.get(0).user()).isEqualTo(ADA);
    assertThat(m.get(0).turnId()).isEqualTo("t1");
    assertThat(m.get(1).thinking()).isEqualTo("Look first.");
    assertThat(m.get(1).content()).isEqualTo("Reading.");
    assertThat(m.get(1).toolCalls()).extracting(ToolCall::callId).containsExactly("c1", "c2");
    assertThat(m.get(1).toolCalls()).allSatisfy(c -> assertThat(c.response()).isNull());
    assertThat(m.get(2).toolCallId()).isEqualTo("c1");
    assertThat(m.get(2).content()).isEqualTo("A");
    assertThat(m.get(3).toolCallId()).isEqualTo("c2");
    assertThat(m.get(3).toolName()).isEqualTo("read_file");
    // texts of one round are joined by a blank line, never glued
    assertThat(m.get(4).thinking()).isEqualTo("Now I know.\n\nMore.");
    assertThat(m.get(4).content()).isEqualTo("Part one.\n\nPart two.");
  }

  @Test
  void aCallThatNeverGotItsResultIsAnsweredAndTheEndOfAFailedTurnIsSaid() {
    ChatTurn t = turn("t1", 0, TurnStatus.CANCELLED, "cancelled", List.of(
        new TurnBlock.Responding(0, T, "Running."), tool(1, "c1", null)));
    List<ChatMessage> m = SessionContext.of(List.of(t), id -> null);
    assertThat(m).extracting(ChatMessage::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
    assertThat(m.get(0).user()).isNull();
    assertThat(m.get(2).content()).isEqualTo(SessionContext.NO_RESULT);
    assertThat(m.get(3).content()).isEqualTo("(turn ended: cancelled)");
  }

  @Test
  void theNextTurnStartsFromTheLatestCompaction() {
    ChatTurn t1 = turn("t1", 0, TurnStatus.FINISHED, null, List.of(tool(0, "c1", "A"),
        new TurnBlock.Responding(1, T, "one")));
    ChatTurn t2 = turn("t2", 1, TurnStatus.FINISHED, null, List.of(tool(0, "c2", "B"),
        new TurnBlock.Responding(1, T, "two")));
    // turn 3 summarized everything up to its own first round and repeated its prompt
    ChatTurn t3 = turn("t3", 2, TurnStatus.FINISHED, null, List.of(
        tool(0, "c3", "C"), tool(1, "c4", "D"),
        new TurnBlock.Compaction(2, T, new ContextCompaction("S", "5 messages", 5, 900, 300,
            "t3", "c4", true)),
        new TurnBlock.Responding(3, T, "three")));
    ChatTurn t4 = turn("t4", 3, TurnStatus.FINISHED, null, List.of(
        new TurnBlock.Responding(0, T, "four")));

    List<ChatMessage> m = SessionContext.of(List.of(t1, t2, t3, t4), id -> ADA);

    assertThat(m).extracting(ChatMessage::content).containsExactly(
        "prompt t1", ContextCompaction.SUMMARY_HEADING + "S", "prompt t3",
        "three", "prompt t4", "four");
    assertThat(m.get(0).user()).isEqualTo(ADA);
    // the round of c3 and c4 went into the summary, calls and results together
    assertThat(m).noneMatch(x -> x.role() == Role.TOOL || !x.toolCalls().isEmpty());

    // kept from a whole earlier turn: its prompt comes back
    ChatTurn t3b = turn("t3", 2, TurnStatus.FINISHED, null, List.of(
        new TurnBlock.Compaction(0, T, new ContextCompaction("S", "3 messages", 3, 900, 300,
            "t2", null, false)),
        new TurnBlock.Responding(1, T, "three")));
    assertThat(SessionContext.of(List.of(t1, t2, t3b), id -> null))
        .extracting(ChatMessage::content).containsExactly(
            "prompt t1", ContextCompaction.SUMMARY_HEADING + "S", "prompt t2", "",
            "B", "two", "prompt t3", "three");
  }
}
