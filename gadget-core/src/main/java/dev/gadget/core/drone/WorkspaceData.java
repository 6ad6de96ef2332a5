package dev.gadget.core.drone;

import dev.gadget.core.model.WorkspaceMode;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The contents of {@code .gadget/workspace.json} (seed 001, section 7.3): the workspace's
 * identity, which chat session and project it is locked to, the projects cloned into it, and its
 * drone registration. Never holds a secret.
 *
 * @param workspaceId the workspace's UUID, immutable once created
 * @param createdAt when the workspace was created
 * @param hostname the host the drone runs on
 * @param workspaceDir the workspace's absolute path
 * @param chatSession the session it is locked to, or {@code null}
 * @param lockedProject the project it is locked to, or {@code null}
 * @param projects every project cloned into it
 * @param registration the drone registration, or {@code null} before the first connection
 * @param mode the mode the user set: {@link WorkspaceMode#USER} while the user has taken the
 *     workspace over (a restarted drone stays in user mode and refuses work orders), otherwise
 *     {@link WorkspaceMode#IDLE}; agent mode, which a work order sets, is never kept
 */
public record WorkspaceData(
    String workspaceId,
    Instant createdAt,
    String hostname,
    String workspaceDir,
    SessionLock chatSession,
    ProjectLock lockedProject,
    List<ProjectEntry> projects,
    Registration registration,
    WorkspaceMode mode) {
  public WorkspaceData {
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(createdAt, "createdAt");
    projects = projects == null ? List.of() : List.copyOf(projects);
    mode = mode == WorkspaceMode.USER ? WorkspaceMode.USER : WorkspaceMode.IDLE;
  }

  /** This workspace with the mode the user set ({@code USER}, or anything else for idle). */
  public WorkspaceData withMode(WorkspaceMode mode) {
    return new WorkspaceData(workspaceId, createdAt, hostname, workspaceDir, chatSession,
        lockedProject, projects, registration, mode);
  }

  /**
   * The chat session a workspace is locked to.
   *
   * @param id the session's id
   * @param name its name
   * @param lockedAt when it was locked
   */
  public record SessionLock(String id, String name, Instant lockedAt) {}

  /**
   * The project a workspace is locked to.
   *
   * @param id the project's id
   * @param slug its directory
   * @param gitUrl its remote
   * @param lockedAt when it was locked
   */
  public record ProjectLock(String id, String slug, String gitUrl, Instant lockedAt) {}

  /**
   * A project cloned into the workspace.
   *
   * @param id the project's id
   * @param slug its directory
   * @param gitUrl its remote
   * @param clonedAt when it was cloned
   * @param lastSyncAt when it was last fetched
   */
  public record ProjectEntry(
      String id, String slug, String gitUrl, Instant clonedAt, Instant lastSyncAt) {}

  /**
   * The drone's registration as of its last connection.
   *
   * @param status the drone's status
   * @param registeredAt when it registered
   */
  public record Registration(String status, Instant registeredAt) {}

  WorkspaceData withHost(String hostname, String workspaceDir) {
    return new WorkspaceData(workspaceId, createdAt, hostname, workspaceDir, chatSession,
        lockedProject, projects, registration, mode);
  }
}
