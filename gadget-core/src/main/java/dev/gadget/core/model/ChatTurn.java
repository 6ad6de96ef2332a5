package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One prompt and everything the agent did for it (seeds 000 and 003, {@code IChatTurn}).
 *
 * @param id the turn's id
 * @param sessionId the chat session it belongs to
 * @param userId the owner
 * @param seq the turn's position in its session, from 0: order comes from it, never from time
 * @param status where the turn stands
 * @param prompt the user's prompt
 * @param mode the agent mode the prompt was sent in (free text, such as {@code "build"})
 * @param blocks the ordered thinking, responding and tool blocks
 * @param toolCalls every tool call with its result, in call order
 * @param stats token and tool counts
 * @param createdAt when the turn was created
 * @param finishedAt when it reached a terminal status, or {@code null}
 * @param error why it failed, or {@code null}
 * @param droneId the drone that ran it, or {@code null}
 * @param model the provider and model that produced it, or {@code null} (turns stored before
 *     they were recorded)
 */
public record ChatTurn(
    @JsonProperty("_id") String id,
    String sessionId,
    String userId,
    long seq,
    TurnStatus status,
    String prompt,
    String mode,
    List<TurnBlock> blocks,
    List<ToolCall> toolCalls,
    TurnStats stats,
    Instant createdAt,
    Instant finishedAt,
    String error,
    String droneId,
    TurnModel model) {
  public ChatTurn {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(createdAt, "createdAt");
    mode = mode == null ? "build" : mode;
    blocks = blocks == null ? List.of() : List.copyOf(blocks);
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    stats = stats == null ? TurnStats.EMPTY : stats;
  }

  /** A turn with no record of its model. */
  public ChatTurn(String id, String sessionId, String userId, long seq, TurnStatus status,
      String prompt, String mode, List<TurnBlock> blocks, List<ToolCall> toolCalls,
      TurnStats stats, Instant createdAt, Instant finishedAt, String error, String droneId) {
    this(id, sessionId, userId, seq, status, prompt, mode, blocks, toolCalls, stats, createdAt,
        finishedAt, error, droneId, null);
  }

  /** This turn, run by {@code droneId}. */
  public ChatTurn withDrone(String droneId) {
    return new ChatTurn(id, sessionId, userId, seq, status, prompt, mode, blocks, toolCalls,
        stats, createdAt, finishedAt, error, droneId, model);
  }

  /**
   * This turn without its thinking blocks' {@link TurnBlock.Thinking#reasoning() signed
   * reasoning}: what pages get, the provider's signatures and encrypted reasoning being for the
   * provider only.
   */
  public ChatTurn withoutReasoning() {
    if (blocks.stream().noneMatch(b -> b instanceof TurnBlock.Thinking t
        && !t.reasoning().isEmpty())) {
      return this;
    }
    List<TurnBlock> bare = blocks.stream().map(b -> b instanceof TurnBlock.Thinking t
        ? t.withoutReasoning() : b).toList();
    return new ChatTurn(id, sessionId, userId, seq, status, prompt, mode, bare, toolCalls,
        stats, createdAt, finishedAt, error, droneId, model);
  }

  /** This turn, recorded as produced by {@code model}. */
  public ChatTurn withModel(TurnModel model) {
    return new ChatTurn(id, sessionId, userId, seq, status, prompt, mode, blocks, toolCalls,
        stats, createdAt, finishedAt, error, droneId, model);
  }

  /** A new turn in {@link TurnStatus#PROCESSING} with no blocks yet. */
  public static ChatTurn start(
      String id, String sessionId, String userId, long seq, String prompt, String mode,
      Instant createdAt) {
    return new ChatTurn(id, sessionId, userId, seq, TurnStatus.PROCESSING, prompt, mode,
        List.of(), List.of(), TurnStats.EMPTY, createdAt, null, null, null);
  }
}
