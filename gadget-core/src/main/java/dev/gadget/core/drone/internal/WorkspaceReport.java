package dev.gadget.core.drone.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.WorkOrderCache;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.WorkspacePayloads;
import dev.gadget.core.transport.Ack;
import java.util.List;
import java.util.Objects;

/**
 * Answers the server's {@code getWorkspaceState} (seeds 000/001, section 7: the web service can
 * inspect a workspace at any time): {@code workspace.json} as it is now (projects whose
 * directory is gone are dropped first), the mode, the status and the cached work order's turn.
 */
final class WorkspaceReport {
  private final DroneState state;
  private final DroneWorkspace workspace;

  WorkspaceReport(DroneState state, DroneWorkspace workspace) {
    this.state = Objects.requireNonNull(state, "state");
    this.workspace = Objects.requireNonNull(workspace, "workspace");
  }

  void onGetState(List<JsonNode> args, Ack ack) {
    Protocol.payload(args, WorkspacePayloads.DroneRef.class);
    workspace.pruneProjects();
    WorkspaceMode mode;
    DroneStatus status;
    String activeTurnId;
    synchronized (state) {
      mode = state.mode;
      status = state.status();
      activeTurnId = state.activeTurnId().orElse(null);
    }
    WorkspacePayloads.CachedTurn cached;
    try {
      cached = workspace.readWorkOrder().map(WorkspaceReport::cached).orElse(null);
    } catch (WorkspaceException e) {
      ServerEvents.reply(ack, new WorkspacePayloads.WorkspaceStateReply(false, e.getMessage(), null));
      return;
    }
    ServerEvents.reply(ack, new WorkspacePayloads.WorkspaceStateReply(true, null,
        new WorkspacePayloads.WorkspaceState(workspace.data(), mode, status, activeTurnId, cached)));
  }

  private static WorkspacePayloads.CachedTurn cached(WorkOrderCache c) {
    return new WorkspacePayloads.CachedTurn(c.turnId(), c.chatSessionId(), c.projectId(),
        c.workOrderId(), c.receivedAt(), c.status(), c.error(), c.lastSeq(),
        c.resumable().size());
  }
}
