package dev.gadget.core.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnDiff;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.model.WorkspaceMode;
import java.util.List;
import java.util.Objects;

/**
 * The typed payloads of {@link Protocol}'s events. Each event carries one of these as its single
 * JSON object argument. Field names are part of the protocol ({@code docs/PROTOCOL.md}), and so
 * are the fields' rules: {@link Protocol#payload} refuses a payload whose required field is
 * missing or {@code null}, whose field has another JSON type than its record's, or whose string
 * is longer than its {@link Limits}.
 */
public final class Payloads {
  private Payloads() {}

  /**
   * What a drone says about itself when it connects to {@code /drone} (its auth payload, beside
   * {@code token}, which is read apart so that it is never part of a record's
   * {@code toString()}).
   *
   * @param workspaceId its workspace's id, which never changes
   * @param hostname the machine it runs on
   * @param workspaceDir its workspace directory there
   * @param activeTurnId the turn it still runs after a reconnect, or {@code null}
   * @param mode its workspace's mode, or {@code null}: idle
   * @param recoveringTurnId the turn of a work order it found from before a crash and asks
   *     {@code requestCrashRecovery} about, or {@code null}: until the answer it takes no work
   */
  public record DroneAuth(@Rule(required = true, maxLength = Limits.ID) String workspaceId,
      @Rule(maxLength = Limits.HOSTNAME) String hostname,
      @Rule(maxLength = Limits.PATH) String workspaceDir,
      @Rule(maxLength = Limits.ID) String activeTurnId, WorkspaceMode mode,
      @Rule(maxLength = Limits.ID) String recoveringTurnId) {}

  /** An error reply in an ack: {@code {"error": "..."}}. */
  public record ErrorReply(String error) {}

  /** {@code createProject}. */
  public record CreateProject(
      @Rule(required = true, maxLength = Limits.NAME) String name,
      @Rule(required = true, maxLength = Limits.SLUG, slug = true) String slug,
      @Rule(required = true, maxLength = Limits.GIT_URL) String gitUrl) {}

  /** {@code listSessions}; {@code projectId} {@code null} lists all. */
  public record ListSessions(@Rule(maxLength = Limits.ID) String projectId) {}

  /** {@code createSession}. */
  public record CreateSession(@Rule(required = true, maxLength = Limits.ID) String projectId,
      @Rule(maxLength = Limits.NAME) String name) {}

  /** {@code watchSession} and {@code unwatchSession}. */
  public record WatchSession(@Rule(required = true, maxLength = Limits.ID) String sessionId) {}

  /**
   * The ack of {@code watchSession}: the stored turns, and for each turn still running what the
   * server has not stored yet. Apply live events whose {@code seq} is greater than
   * {@code lastSeq}; no token is missing or repeated. {@code approvals} holds the session's
   * approval policy and the calls that wait for approval now. Thinking blocks come without their
   * signed reasoning ({@link ChatTurn#withoutReasoning()}).
   */
  public record SessionSnapshot(String sessionId, List<ChatTurn> turns, List<LiveTurn> live,
      ApprovalPayloads.ApprovalPolicyReply approvals) {
    public SessionSnapshot {
      turns = turns == null ? List.of() : turns.stream().map(ChatTurn::withoutReasoning).toList();
      live = live == null ? List.of() : List.copyOf(live);
    }

    /** A snapshot without approvals. */
    public SessionSnapshot(String sessionId, List<ChatTurn> turns, List<LiveTurn> live) {
      this(sessionId, turns, live, null);
    }
  }

  /**
   * A running turn's state beyond its stored blocks.
   *
   * @param turnId the turn
   * @param lastSeq the last stream event already reflected in the snapshot (-1: none)
   * @param openBlock the block being written, not yet stored, or {@code null}
   * @param runningTool the tool running now (its {@code toolStarted}), or {@code null}
   * @param toolOutput what it printed so far (the last {@code 64,000} characters of the
   *     {@code toolOutput} events), or {@code null}
   * @param stats the stats the drone last sent for it ({@code turnStats}), or {@code null}
   */
  public record LiveTurn(String turnId, long lastSeq, TurnBlock openBlock,
      ToolStarted runningTool, String toolOutput, TurnStats stats) {
    public LiveTurn { // pages never get signed reasoning
      openBlock = openBlock instanceof TurnBlock.Thinking t ? t.withoutReasoning() : openBlock;
    }

    /** A running turn with no tool running and no stats yet. */
    public LiveTurn(String turnId, long lastSeq, TurnBlock openBlock) {
      this(turnId, lastSeq, openBlock, null, null, null);
    }
  }

  /** {@code submitPrompt}. */
  public record SubmitPrompt(@Rule(required = true, maxLength = Limits.ID) String sessionId,
      @Rule(required = true, maxLength = Limits.PROMPT) String prompt,
      @Rule(maxLength = Limits.ID) String mode) {}

  /** The ack of {@code submitPrompt}: the turn's id, or an error. */
  public record SubmitReply(String turnId, String error) {}

  /** {@code cancelTurn}. */
  public record CancelTurn(@Rule(required = true, maxLength = Limits.ID) String turnId) {}

  /** A plain ack: {@code ok}, or an {@code error}. */
  public record OkReply(boolean ok, String error) {
    /** Success. */
    public static OkReply success() {
      return new OkReply(true, null);
    }

    /** Failure with a message. */
    public static OkReply failure(String error) {
      return new OkReply(false, error);
    }
  }

  /** {@code requestSessionLock}: lock a session to a drone ({@code droneId} {@code null}: any). */
  public record SessionLock(@Rule(required = true, maxLength = Limits.ID) String sessionId,
      @Rule(maxLength = Limits.ID) String droneId,
      @Rule(maxLength = Limits.NAME) String sessionName, WorkOrder.ProjectRef project) {}

  /** {@code requestWorkspaceMode}: the drone it is for and the mode it should take. */
  public record WorkspaceModeRequest(
      @Rule(required = true, maxLength = Limits.ID) String droneId,
      @Rule(required = true) WorkspaceMode mode) {
    public WorkspaceModeRequest {
      Objects.requireNonNull(mode, "mode");
    }
  }

  /**
   * {@code processWorkOrder}.
   *
   * @param workOrder the work order, API key included (in memory only)
   * @param firstSeq the {@code seq} of the first stream event the drone sends (0 for a new turn)
   * @param resume whether to resume after the tool rounds the drone journaled in
   *     {@code .gadget/work-order.json} instead of starting the turn over
   */
  public record ProcessWorkOrder(
      @Rule(required = true) WorkOrder workOrder, long firstSeq, boolean resume) {
    public ProcessWorkOrder {
      Objects.requireNonNull(workOrder, "workOrder");
    }
  }

  /** The ack of {@code processWorkOrder}. */
  public record WorkOrderAck(boolean accepted, String reason) {}

  /** {@code cancelWorkOrder}. */
  public record CancelWorkOrder(@Rule(required = true, maxLength = Limits.ID) String turnId) {}

  /**
   * {@code thinking} and {@code response}: tokens of a turn.
   *
   * @param turnId the turn
   * @param seq the stream event's number
   * @param data the text
   * @param tokens optional (seed 003's "token count with each chunk"): how many chunks the model
   *     has streamed in this turn so far, this one included, since the drone (re)started it;
   *     Ollama and OpenAI-compatible servers stream one token per chunk, so it counts tokens as
   *     they come (the exact counts arrive with {@code turnStats}); {@code null} when not sent
   * @param reasoning {@code thinking} from a drone only: the reasoning just streamed as its
   *     provider signed or encrypted it, kept with the thinking block for the next turn (its
   *     {@code data} is then usually empty); never sent on to pages; written only when not empty
   */
  public record TextEvent(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) long seq,
      @Rule(required = true, blankAllowed = true) String data, Long tokens,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SignedReasoning> reasoning) {
    public TextEvent {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(data, "data");
      reasoning = reasoning == null ? List.of() : List.copyOf(reasoning);
    }

    /** An event without signed reasoning. */
    public TextEvent(String turnId, long seq, String data, Long tokens) {
      this(turnId, seq, data, tokens, List.of());
    }

    /** This event without its signed reasoning: what pages get. */
    public TextEvent withoutReasoning() {
      return reasoning.isEmpty() ? this : new TextEvent(turnId, seq, data, tokens);
    }

    /** An event without a token count. */
    public TextEvent(String turnId, long seq, String data) {
      this(turnId, seq, data, null);
    }
  }

  /** {@code toolCall}: a tool call with its result. */
  public record ToolCallEvent(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) long seq, @Rule(required = true) ToolCall call) {
    public ToolCallEvent {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(call, "call");
    }
  }

  /**
   * {@code workOrderComplete}: the turn ended.
   *
   * @param turnId the turn
   * @param seq the stream event's number
   * @param status how it ended
   * @param stats tokens, tool calls, round trips and duration
   * @param error for anything but finished, a sentence for people
   * @param text the text of the model's last reply ({@code null} when there was none, or when
   *     the turn ended without its drone saying so: a timeout, a crash)
   */
  public record WorkOrderComplete(
      @Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) long seq,
      @Rule(required = true) TurnStatus status, TurnStats stats, String error,
      @Rule(blankAllowed = true) String text) {
    public WorkOrderComplete {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(status, "status");
    }

    /** The end of a turn without its final text. */
    public WorkOrderComplete(String turnId, long seq, TurnStatus status, TurnStats stats,
        String error) {
      this(turnId, seq, status, stats, error, null);
    }
  }

  /** {@code heartbeat}: the drone is alive and running {@code turnId}. */
  public record Heartbeat(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) long seq) {}

  /**
   * {@code requestCrashRecovery}: a drone restarted and found {@code .gadget/work-order.json}.
   *
   * @param workspaceId the drone's workspace
   * @param turnId the turn it was running
   * @param chatSessionId that turn's session
   * @param workOrderId the work order's id
   * @param journaledMessages how many tool rounds it journaled (completed, or with tools started)
   * @param redoesModelRound whether a retry streams the interrupted model round again (the crash
   *     came while the model streamed, not while or after a tool ran): the server then marks
   *     that round's blocks {@link dev.gadget.core.model.TurnBlock#isSuperseded() superseded}
   */
  public record CrashRecoveryRequest(@Rule(maxLength = Limits.ID) String workspaceId,
      @Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(maxLength = Limits.ID) String chatSessionId,
      @Rule(maxLength = Limits.ID) String workOrderId, int journaledMessages,
      Boolean redoesModelRound) {
    /** A request that does not redo a model round (as an older drone sends it). */
    public CrashRecoveryRequest(String workspaceId, String turnId, String chatSessionId,
        String workOrderId, int journaledMessages) {
      this(workspaceId, turnId, chatSessionId, workOrderId, journaledMessages, null);
    }

    /** Whether the retry streams the interrupted model round again. */
    public boolean redoes() {
      return Boolean.TRUE.equals(redoesModelRound);
    }
  }

  /**
   * {@code crashRecoveryResponse}.
   *
   * @param turnId the turn
   * @param action {@code "discard"} or {@code "retry"}
   * @param retry for a retry, the work order to run again (with its API key), its first
   *     {@code seq}, and whether to resume after the journal
   * @param retryDelay for a retry, how many milliseconds the drone waits before it retries (seed
   *     001); {@code null} or 0: at once
   */
  public record CrashRecoveryResponse(
      @Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true, oneOf = {"discard", "retry"}) String action,
      ProcessWorkOrder retry, Long retryDelay) {
    /** An answer that asks for no wait. */
    public CrashRecoveryResponse(String turnId, String action, ProcessWorkOrder retry) {
      this(turnId, action, retry, null);
    }

    /** How long to wait before retrying, in milliseconds (0 for none). */
    public long retryDelayMillis() {
      return retryDelay == null ? 0 : Math.max(0, retryDelay);
    }

    /** Discard the cached work order. */
    public static final String DISCARD = "discard";
    /** Run it again. */
    public static final String RETRY = "retry";
  }

  /** {@code droneStatus}. */
  public record DroneStatusEvent(@Rule(maxLength = Limits.ID) String droneId,
      @Rule(required = true) DroneStatus status, @Rule(maxLength = Limits.ID) String turnId) {}

  /** {@code turnStarted} (server to page). */
  public record TurnStarted(@Rule(required = true) ChatTurn turn) {}

  /**
   * {@code blocksSuperseded} (server to page): a drone crashed while the model streamed, and
   * the retry streams that model round again; the round's blocks are kept but
   * {@link dev.gadget.core.model.TurnBlock#isSuperseded() superseded}, and the turn's open block is
   * closed (the redone round's tokens start a new block).
   *
   * @param turnId the turn
   * @param blocks the superseded blocks' {@code seq} numbers
   */
  public record BlocksSuperseded(@Rule(required = true, maxLength = Limits.ID) String turnId,
      List<Integer> blocks) {
    public BlocksSuperseded {
      blocks = blocks == null ? List.of() : List.copyOf(blocks);
    }
  }

  /**
   * {@code toolStarted} (drone to server, server to page): a tool is about to run; sent after the
   * drone journaled its start and before it runs. The server stores the open block then, so the
   * text streamed before a long command is safe while it runs. Its {@code seq} is a stream
   * event's, applied in order like the others.
   *
   * @param turnId the turn
   * @param seq the stream event's number
   * @param callId the call's id (the {@code toolCall} with its result carries the same)
   * @param name the tool
   * @param args the arguments as JSON text
   */
  public record ToolStarted(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) long seq, @Rule(required = true, maxLength = Limits.NAME) String callId,
      @Rule(required = true, maxLength = Limits.NAME) String name,
      @Rule(blankAllowed = true) String args) {
    public ToolStarted {
      Objects.requireNonNull(turnId, "turnId");
    }
  }

  /** {@code renameSession}: the session's new name (trimmed; not blank). */
  public record RenameSession(@Rule(required = true, maxLength = Limits.ID) String sessionId,
      @Rule(required = true, maxLength = Limits.NAME) String name) {}

  /** {@code renameProject}: the project's new name (the rules of {@code createProject}). */
  public record RenameProject(@Rule(required = true, maxLength = Limits.ID) String projectId,
      @Rule(required = true, maxLength = Limits.NAME) String name) {}

  /**
   * {@code toolOutput} (drone to server, server to page): output the running tool printed since
   * the last one, as it printed it. A stream event with its {@code seq}, applied in order; never
   * stored (the {@code toolCall} that follows carries the result).
   *
   * @param turnId the turn
   * @param seq the stream event's number
   * @param callId the running call, as its {@code toolStarted} named it
   * @param data the output
   */
  public record ToolOutput(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) long seq, @Rule(required = true, maxLength = Limits.NAME) String callId,
      @Rule(required = true, blankAllowed = true) String data) {
    public ToolOutput {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(data, "data");
    }
  }

  /**
   * {@code droneTools} (drone to server, on every connect): the tools the drone offers every
   * turn.
   *
   * @param tools their definitions, as the model is offered them
   * @param orphansCleaned how many synthesized tools' registry entries the drone dropped when it
   *     started because their files were gone, or {@code null} (none, or an older drone)
   */
  public record DroneTools(@Rule(required = true) List<ToolInfo> tools, Integer orphansCleaned) {
    public DroneTools {
      tools = tools == null ? List.of() : List.copyOf(tools);
    }
  }

  /**
   * One tool of {@link DroneTools}.
   *
   * @param name the name the model calls it by
   * @param description what it does, for the model
   * @param parameters the JSON schema of its arguments
   */
  public record ToolInfo(@Rule(required = true, maxLength = Limits.NAME) String name,
      @Rule(blankAllowed = true) String description, JsonNode parameters) {}

  /**
   * Seed 004's {@code query} (client to server on {@link Protocol#AGENT_NAMESPACE}), with its
   * field names as seed 004 spells them.
   *
   * @param prompt the user's query; missing or blank is answered {@code error {message: "No
   *     prompt provided"}}
   * @param session_id a chat session of the user's, or any other id: an id the server does not
   *     know gets a new session in the user's default project, kept for that id; {@code null}:
   *     a new session
   */
  public record AgentQuery(@Rule(maxLength = Limits.PROMPT) String prompt,
      @Rule(maxLength = Limits.ID) String session_id) {}

  /**
   * {@code compaction}: the agent summarized the oldest rounds of its context to fit its budget;
   * stored as a compaction block.
   *
   * @param turnId the turn
   * @param seq the stream event's number
   * @param compaction what was summarized, the summary, the tokens before and after
   */
  public record CompactionEvent(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) long seq, @Rule(required = true) ContextCompaction compaction) {
    public CompactionEvent {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(compaction, "compaction");
    }
  }

  /** {@code deleteSession}: the chat session to delete, with its turns. */
  public record DeleteSession(@Rule(required = true, maxLength = Limits.ID) String sessionId) {}

  /** {@code deleteProject}: the project to delete, with its chat sessions and their turns. */
  public record DeleteProject(@Rule(required = true, maxLength = Limits.ID) String projectId) {}

  /**
   * {@code sessionDeleted} (server to the session's watchers): the chat session is gone, deleted
   * alone or with its project.
   *
   * @param sessionId the deleted session
   * @param projectId its project
   * @param projectDeleted whether its project was deleted with it
   */
  public record SessionDeleted(String sessionId, String projectId, boolean projectDeleted) {}
}
