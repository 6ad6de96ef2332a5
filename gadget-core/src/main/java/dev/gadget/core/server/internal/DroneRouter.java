package dev.gadget.core.server.internal;

import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.transport.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which drone gets a work order: the user's connected drones, the one that already holds the
 * chat session's workspace first, then any free one (lowest id first); a drone whose workspace
 * is in user mode or that runs a turn is not free. Its {@link #lock()} guards every drone's
 * status, so two prompts never get the same drone.
 */
public final class DroneRouter {
  private final Map<String, ConnectedDrone> drones = new ConcurrentHashMap<>();
  /** Each user's drones, so that a prompt looks at its user's drones only. */
  private final Map<String, Set<ConnectedDrone>> byUser = new ConcurrentHashMap<>();
  private final Object lock = new Object();
  static final String NO_DRONE = "no drone is connected: start a drone with one of your tokens";
  static final String ALL_USER_MODE = "every drone's workspace is in user mode";
  static final String ALL_BUSY = "every drone is busy";

  /** Whether {@code e} says that no drone of the user here could take a prompt. */
  static boolean noFreeDrone(RequestException e) {
    String m = e.getMessage();
    return NO_DRONE.equals(m) || ALL_USER_MODE.equals(m) || ALL_BUSY.equals(m);
  }

  /** The routing lock: held while a drone is chosen, registered or marked offline. */
  Object lock() {
    return lock;
  }

  /** The drone with this registration id, created (not yet connected) if it is new. */
  ConnectedDrone register(String droneId, String userId, String workspaceId) {
    return drones.computeIfAbsent(droneId, id -> {
      ConnectedDrone d = new ConnectedDrone(id, userId, workspaceId);
      byUser.computeIfAbsent(userId, u -> ConcurrentHashMap.newKeySet()).add(d);
      return d;
    });
  }

  private Set<ConnectedDrone> of(String userId) {
    return byUser.getOrDefault(userId, Set.of());
  }

  /** The drone with this registration id, if the server has seen it since it started. */
  ConnectedDrone find(String droneId) {
    return droneId == null ? null : drones.get(droneId);
  }

  /** The drone whose current link is {@code c}. */
  ConnectedDrone byConnection(Connection c) {
    ConnectedDrone found = null;
    for (ConnectedDrone d : drones.values()) {
      if (d.connection == c) {
        found = d;
      }
    }
    return found;
  }

  /**
   * How many distinct tools the connected drones of {@code userId} offer every turn (what
   * they said when they connected).
   */
  int toolCount(String userId) {
    return toolNames(userId).size();
  }

  /** The distinct names of the tools the connected drones of {@code userId} offer. */
  Set<String> toolNames(String userId) {
    Set<String> names = new java.util.HashSet<>();
    for (ConnectedDrone d : of(userId)) {
      if (d.isConnected()) {
        names.addAll(d.toolNames);
      }
    }
    return names;
  }

  /**
   * How many synthesized tools' registry entries the user's connected drones dropped at their
   * start because their files were gone (seed 004's {@code orphans_cleaned}).
   */
  int orphansCleaned(String userId) {
    int n = 0;
    for (ConnectedDrone d : of(userId)) {
      n += d.isConnected() ? d.orphansCleaned : 0;
    }
    return n;
  }

  /** Frees drone {@code droneId} if it was running {@code turnId}. */
  void release(String droneId, String turnId) {
    ConnectedDrone d = drones.get(droneId);
    if (d != null) {
      d.release(turnId);
    }
  }

  /**
   * Picks a drone of {@code userId} for a work order; call under {@link #lock()}.
   *
   * @param workspaceId the chat session's workspace, preferred when its drone is free; or null
   * @param droneId the drone the page asked for, or null for any
   * @throws RequestException when no drone can take it, saying why
   */
  ConnectedDrone pick(String userId, String workspaceId, String droneId) {
    List<ConnectedDrone> mine = new ArrayList<>();
    for (ConnectedDrone d : of(userId)) {
      if (d.isConnected()) {
        mine.add(d);
      }
    }
    if (droneId != null) {
      return mine.stream().filter(d -> d.id.equals(droneId)).findFirst()
          .map(DroneRouter::checkFree)
          .orElseThrow(() -> new RequestException("that drone is not connected"));
    }
    if (mine.isEmpty()) {
      throw new RequestException(NO_DRONE);
    }
    if (workspaceId != null) {
      Optional<ConnectedDrone> home = mine.stream()
          .filter(d -> d.workspaceId.equals(workspaceId) && d.isFree()).findFirst();
      if (home.isPresent()) {
        return home.get();
      }
    }
    return mine.stream().filter(ConnectedDrone::isFree).min((a, b) -> a.id.compareTo(b.id))
        .orElseThrow(() -> new RequestException(mine.stream().allMatch(
            d -> d.mode == WorkspaceMode.USER)
                ? ALL_USER_MODE : ALL_BUSY));
  }

  private static ConnectedDrone checkFree(ConnectedDrone d) {
    if (d.mode == WorkspaceMode.USER) {
      throw new RequestException("the workspace is in user mode");
    }
    if (!d.isFree()) {
      throw new RequestException("the drone is busy");
    }
    return d;
  }
}
