package dev.gadget.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.DroneStatus;
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
 * The payloads of a drone's workspace as seed 001 draws it: its mode, its state on request, its
 * registration, a retried turn and a running turn's stats (docs/PROTOCOL.md).
 */
public final class WorkspacePayloads {
  private WorkspacePayloads() {}


  /**
   * {@code workspaceMode}: a drone's workspace mode changed.
   *
   * @param droneId the drone (set by the server; {@code null} from the drone itself)
   * @param mode the mode it is in now
   */
  public record WorkspaceModeEvent(@Rule(maxLength = Limits.ID) String droneId,
      @Rule(required = true) WorkspaceMode mode) {
    public WorkspaceModeEvent {
      Objects.requireNonNull(mode, "mode");
    }
  }

  /** {@code getWorkspaceState} and {@code releaseSessionLock}: the drone they are for. */
  public record DroneRef(@Rule(required = true, maxLength = Limits.ID) String droneId) {}

  /**
   * A drone's workspace as the drone reports it ({@code getWorkspaceState}).
   *
   * @param workspace what {@code .gadget/workspace.json} holds (projects with their clone and sync
   *     times, the session and project locks, the registration)
   * @param mode the workspace mode now
   * @param status the drone's status now
   * @param activeTurnId the turn it runs, or {@code null}
   * @param cachedTurn the work order in {@code .gadget/work-order.json}, or {@code null}
   */
  public record WorkspaceState(@Rule(required = true) dev.gadget.core.model.WorkspaceData workspace,
      @Rule(required = true) WorkspaceMode mode, @Rule(required = true) DroneStatus status,
      @Rule(maxLength = Limits.ID) String activeTurnId, CachedTurn cachedTurn) {}

  /**
   * The work order a drone has cached in {@code .gadget/work-order.json} (never its prompt's
   * provider or key).
   *
   * @param turnId the turn
   * @param chatSessionId its session
   * @param projectId its project
   * @param workOrderId the work order
   * @param receivedAt when the drone received it
   * @param status {@code processing}, {@code completed}, {@code error} or {@code stopped}
   * @param error the error message, for {@code error}
   * @param lastSeq the last stream event sent
   * @param journaledRounds how many tool rounds are journaled
   */
  public record CachedTurn(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(maxLength = Limits.ID) String chatSessionId,
      @Rule(maxLength = Limits.ID) String projectId,
      @Rule(maxLength = Limits.ID) String workOrderId, java.time.Instant receivedAt,
      @Rule(maxLength = Limits.NAME) String status, String error, long lastSeq,
      int journaledRounds) {}

  /** The drone's answer to {@code getWorkspaceState}: the state, or {@code ok: false, error}. */
  public record WorkspaceStateReply(boolean ok, String error, WorkspaceState state) {}

  /**
   * The ack of {@code droneRegistration}.
   *
   * @param id the drone's registration id (one per user and workspace)
   * @param status its status as the server sees it
   * @param registeredAt when the server first registered it
   */
  public record RegistrationReply(
      @com.fasterxml.jackson.annotation.JsonProperty("_id") @Rule(required = true,
          maxLength = Limits.ID) String id,
      DroneStatus status, java.time.Instant registeredAt) {}

  /**
   * {@code turnRecovered} (server to page).
   *
   * @param turnId the turn
   * @param message what happened, for people
   * @param retryDelay how many milliseconds the drone waits before it retries
   * @param crashRetries how many times this turn was retried after a crash, this one included
   */
  public record TurnRecovered(@Rule(required = true, maxLength = Limits.ID) String turnId,
      String message, long retryDelay, int crashRetries) {}

  /**
   * {@code turnStats}: a running turn's stats so far (the last one sent wins; the turn's end
   * carries the final ones).
   *
   * @param turnId the turn
   * @param stats its stats so far
   */
  public record TurnStatsEvent(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) TurnStats stats) {}
}
