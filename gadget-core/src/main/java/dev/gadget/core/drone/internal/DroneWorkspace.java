package dev.gadget.core.drone.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.Git;
import dev.gadget.core.drone.WorkOrderCache;
import dev.gadget.core.drone.Workspace;
import dev.gadget.core.model.WorkspaceData;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.WorkspacePayloads;
import dev.gadget.core.transport.Ack;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The drone's use of its {@link Workspace} and {@code .gadget/} files: checks projects out with
 * git, keeps {@code workspace.json} up to date (registration, projects, session lock) and reads
 * and writes the work order cache {@code work-order.json}.
 */
public final class DroneWorkspace {
  private final Workspace workspace;
  private final Git git;
  private final Clock clock;

  /** The drone's view of {@code workspace}; {@code clock} stamps what it records. */
  public DroneWorkspace(Workspace workspace, Git git, Clock clock) {
    this.workspace = Objects.requireNonNull(workspace, "workspace");
    this.git = Objects.requireNonNull(git, "git");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  String id() {
    return workspace.id();
  }

  Path dir() {
    return workspace.dir();
  }

  /** The directory of project {@code slug}; a bad slug is a {@link WorkspaceException}. */
  Path projectDir(String slug) {
    return workspace.projectDir(slug);
  }

  /** Clones or fetches {@code project}, records it in {@code workspace.json}; its directory. */
  Path checkout(WorkOrder.ProjectRef project) {
    Path projectDir = workspace.projectDir(project.slug());
    Git.Checkout done = git.checkout(project.gitUrl(), projectDir);
    recordProject(project, done);
    return projectDir;
  }

  private void recordProject(WorkOrder.ProjectRef project, Git.Checkout done) {
    boolean cloned = done == Git.Checkout.CLONED;
    java.time.Instant now = clock.instant();
    workspace.update(d -> {
      List<WorkspaceData.ProjectEntry> entries = new ArrayList<>();
      WorkspaceData.ProjectEntry existing = null;
      for (WorkspaceData.ProjectEntry e : d.projects()) {
        if (e.id().equals(project.id())) {
          existing = e;
        } else {
          entries.add(e);
        }
      }
      entries.add(new WorkspaceData.ProjectEntry(project.id(), project.slug(),
          WorkOrder.ProjectRef.withoutCredentials(project.gitUrl()),
          existing == null || cloned ? now : existing.clonedAt(),
          done != Git.Checkout.NOT_SYNCED ? now
              : existing == null ? null : existing.lastSyncAt()));
      return new WorkspaceData(d.workspaceId(), d.createdAt(), d.hostname(), d.workspaceDir(),
          d.chatSession(), d.lockedProject(), entries, d.registration(), d.mode());
    });
  }

  /**
   * At start, before connecting (seed 001, 7.4): drops the projects whose checkout is gone, and
   * records the registration as {@code starting}, with the id and time the server gave it last.
   */
  public void starting() {
    pruneProjects();
    setRegistration(r -> new WorkspaceData.Registration(r == null ? null : r.id(), "starting",
        r == null ? null : r.registeredAt()));
  }

  /** Records the registration the server keeps for this drone, as it told it on connecting. */
  void registered(WorkspacePayloads.RegistrationReply reply, DroneStatus status) {
    setRegistration(r -> new WorkspaceData.Registration(reply.id(), lower(status),
        reply.registeredAt()));
  }

  /** Records the drone's status in its registration when it changed. */
  void statusChanged(DroneStatus status) {
    WorkspaceData.Registration now = workspace.data().registration();
    if (now != null && !lower(status).equals(now.status())) {
      setRegistration(r -> new WorkspaceData.Registration(r == null ? null : r.id(),
          lower(status), r == null ? null : r.registeredAt()));
    }
  }

  private static String lower(DroneStatus status) {
    return status.name().toLowerCase(java.util.Locale.ROOT);
  }

  private void setRegistration(
      java.util.function.UnaryOperator<WorkspaceData.Registration> change) {
    workspace.update(d -> new WorkspaceData(d.workspaceId(), d.createdAt(), d.hostname(),
        d.workspaceDir(), d.chatSession(), d.lockedProject(), d.projects(),
        change.apply(d.registration()), d.mode()));
  }

  /** Handles the server's request to lock the workspace to a chat session and its project. */
  void onSessionLock(List<JsonNode> args, Ack ack) {
    Payloads.SessionLock p = Protocol.payload(args, Payloads.SessionLock.class);
    try {
      workspace.projectDir(p.project().slug());
      WorkspaceData.SessionLock session =
          new WorkspaceData.SessionLock(p.sessionId(), p.sessionName(), clock.instant());
      WorkspaceData.ProjectLock project = new WorkspaceData.ProjectLock(p.project().id(),
          p.project().slug(), WorkOrder.ProjectRef.withoutCredentials(p.project().gitUrl()),
          clock.instant());
      workspace.update(d -> new WorkspaceData(d.workspaceId(), d.createdAt(), d.hostname(),
          d.workspaceDir(), session, project, d.projects(), d.registration(), d.mode()));
      ServerEvents.reply(ack, Payloads.OkReply.success());
    } catch (WorkspaceException e) {
      ServerEvents.reply(ack, Payloads.OkReply.failure(e.getMessage()));
    }
  }

  /** Handles the server's request to release the workspace's session and project lock. */
  void onReleaseLock(List<JsonNode> args, Ack ack) {
    Protocol.payload(args, WorkspacePayloads.DroneRef.class);
    workspace.update(d -> new WorkspaceData(d.workspaceId(), d.createdAt(), d.hostname(),
        d.workspaceDir(), null, null, d.projects(), d.registration(), d.mode()));
    ServerEvents.reply(ack, Payloads.OkReply.success());
  }

  /** Drops the projects whose checkout is gone from the workspace (the user removed them). */
  void pruneProjects() {
    workspace.update(d -> {
      List<WorkspaceData.ProjectEntry> kept = new ArrayList<>();
      for (WorkspaceData.ProjectEntry e : d.projects()) {
        if (java.nio.file.Files.isDirectory(workspace.projectDir(e.slug()).resolve(".git"))) {
          kept.add(e);
        }
      }
      return kept.size() == d.projects().size() ? d
          : new WorkspaceData(d.workspaceId(), d.createdAt(), d.hostname(), d.workspaceDir(),
              d.chatSession(), d.lockedProject(), kept, d.registration(), d.mode());
    });
  }

  /** What {@code workspace.json} holds now. */
  WorkspaceData data() {
    return workspace.data();
  }

  /** The mode the user set, as {@code workspace.json} keeps it across restarts. */
  WorkspaceMode savedMode() {
    return workspace.data().mode();
  }

  /** Keeps the mode the user set in {@code workspace.json}; a write failure is thrown. */
  void saveMode(WorkspaceMode mode) {
    workspace.update(d -> d.withMode(mode));
  }

  /** Writes {@code work-order.json}. */
  void writeWorkOrder(WorkOrderCache cache) {
    workspace.writeWorkOrder(cache);
  }

  /** Reads {@code work-order.json}; an unreadable one is a {@link WorkspaceException}. */
  Optional<WorkOrderCache> readWorkOrder() {
    return workspace.readWorkOrder();
  }

  /** Removes {@code work-order.json}. */
  void deleteWorkOrder() {
    workspace.deleteWorkOrder();
  }

  /** Moves an unreadable {@code work-order.json} aside; where it went. */
  Path quarantineWorkOrder() {
    return workspace.quarantineWorkOrder();
  }
}
