package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ChatTurn;
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
}
