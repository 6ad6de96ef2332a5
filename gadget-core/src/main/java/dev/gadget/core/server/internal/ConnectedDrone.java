package dev.gadget.core.server.internal;

import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.transport.Connection;

/**
 * A drone as the server sees it now: its link, status, workspace mode and running turn. Its
 * mutable fields change under {@link DroneRouter#lock()}.
 */
public final class ConnectedDrone {
  final String id;
  final String userId;
  final String workspaceId;
  volatile Connection connection;
  volatile DroneStatus status = DroneStatus.AVAILABLE;
  volatile WorkspaceMode mode = WorkspaceMode.IDLE;
  volatile String activeTurnId;
  /** The names of the tools it offers every turn ({@code droneTools}); empty until it says. */
  volatile java.util.List<String> toolNames = java.util.List.of();
  /** The synthesized tools' registry entries the drone dropped at its start (droneTools). */
  volatile int orphansCleaned;
  /**
   * The live turn this drone's stream events went to last ({@link LiveTurns#streamedBy}): a
   * drone streams one turn at a time, so its next token finds it without a lookup. Set by the
   * drone's own events, one at a time.
   */
  volatile LiveTurn streaming;

  ConnectedDrone(String id, String userId, String workspaceId) {
    this.id = id;
    this.userId = userId;
    this.workspaceId = workspaceId;
  }

  /** Frees the drone if it was running {@code turnId}. */
  synchronized void release(String turnId) {
    LiveTurn last = streaming;
    if (last != null && last.turn.id().equals(turnId)) {
      streaming = null; // an ended turn is not kept for the drone's next tokens
    }
    if (turnId.equals(activeTurnId)) {
      activeTurnId = null;
      if (status == DroneStatus.BUSY) {
        status = DroneStatus.AVAILABLE;
      }
    }
  }

  boolean isFree() {
    return status == DroneStatus.AVAILABLE && activeTurnId == null
        && mode != WorkspaceMode.USER;
  }

  /** How many tools it offers every turn, as it said when it connected. */
  public int toolCount() {
    return toolNames.size();
  }

  boolean isConnected() {
    Connection c = connection;
    return c != null && c.isConnected();
  }
}
