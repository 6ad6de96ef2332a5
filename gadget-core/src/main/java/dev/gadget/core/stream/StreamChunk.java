package dev.gadget.core.stream;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnDiff;
import java.util.List;
import java.util.Objects;

/**
 * One piece of a streaming turn (seed 003, {@code IAiStreamChunk}): a closed union of
 * {@link Thinking} and {@link Response} tokens, finished {@link ToolCallChunk tool calls},
 * {@link CompactionChunk context compactions}, and the {@link Changes} a turn made to the
 * project's files (sent by the drone, not the agent).
 *
 * <p>JSON: {@code {"type":"thinking","data":"..."}}, {@code {"type":"response","data":"..."}},
 * {@code {"type":"toolCall","call":{"callId":...,"name":...,"parameters":...,"response":...}}}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = StreamChunk.Thinking.class, name = "thinking"),
  @JsonSubTypes.Type(value = StreamChunk.Response.class, name = "response"),
  @JsonSubTypes.Type(value = StreamChunk.ToolCallChunk.class, name = "toolCall"),
  @JsonSubTypes.Type(value = StreamChunk.Changes.class, name = "changes"),
  @JsonSubTypes.Type(value = StreamChunk.CompactionChunk.class, name = "compaction")
})
public sealed interface StreamChunk {

  /**
   * Reasoning tokens, or (with empty {@code data}) the reasoning just streamed as its provider
   * signed or encrypted it, for the open thinking block.
   *
   * @param data the text
   * @param reasoning signed or encrypted reasoning ({@link SignedReasoning}); written only when
   *     not empty
   */
  record Thinking(String data,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SignedReasoning> reasoning)
      implements StreamChunk {
    public Thinking {
      Objects.requireNonNull(data, "data");
      reasoning = reasoning == null ? List.of() : List.copyOf(reasoning);
    }

    /** Reasoning tokens only. */
    public Thinking(String data) {
      this(data, List.of());
    }
  }

  /**
   * Reply tokens.
   *
   * @param data the text
   */
  record Response(String data) implements StreamChunk {
    public Response {
      Objects.requireNonNull(data, "data");
    }
  }

  /**
   * A tool call, normally with its result once the tool has run.
   *
   * @param call the call
   */
  record ToolCallChunk(ToolCall call) implements StreamChunk {
    public ToolCallChunk {
      Objects.requireNonNull(call, "call");
    }
  }

  /**
   * What the turn did to the project's files, at its end; it becomes a
   * {@link dev.gadget.core.model.TurnBlock.Diff diff block}.
   *
   * @param diff the changed files and their patch
   */
  record Changes(TurnDiff diff) implements StreamChunk {
    public Changes {
      Objects.requireNonNull(diff, "diff");
    }
  }

  /**
   * The agent compacted its context: the oldest rounds were summarized.
   *
   * @param compaction what was summarized, the summary, the tokens before and after
   */
  record CompactionChunk(ContextCompaction compaction) implements StreamChunk {
    public CompactionChunk {
      Objects.requireNonNull(compaction, "compaction");
    }
  }
}
