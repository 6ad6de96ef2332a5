package dev.gadget.core.store.internal;

import static dev.gadget.core.store.internal.Indexes.index;
import static dev.gadget.core.store.internal.Indexes.key;
import static dev.gadget.core.store.internal.Indexes.resolve;
import static dev.gadget.core.store.internal.Indexes.unindex;

import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;

/**
 * The drones part of {@link IndexedState}: registrations by id, by user and by user and
 * workspace, with the checks of their writes.
 */
public final class DroneState {
  private final Map<String, DroneRegistration> drones = new HashMap<>();
  private final Map<String, NavigableSet<String>> dronesByUser = new HashMap<>();
  private final Map<String, NavigableSet<String>> dronesByWorkspace = new HashMap<>();

  public Optional<DroneRegistration> findDrone(String id) {
    return Optional.ofNullable(id == null ? null : drones.get(id));
  }

  /** If several drones of the user name the workspace, the one with the smallest id. */
  public Optional<DroneRegistration> findDroneByWorkspace(String userId, String workspaceId) {
    NavigableSet<String> ids = dronesByWorkspace.get(key(userId, workspaceId));
    return ids == null || ids.isEmpty() ? Optional.empty() : Optional.of(drones.get(ids.first()));
  }

  public List<DroneRegistration> listDrones(String userId) {
    return resolve(dronesByUser.get(userId), drones::get);
  }

  public Change checkSave(DroneRegistration drone) {
    return new Change.SaveDrone(Objects.requireNonNull(drone, "drone"));
  }

  public Change checkUpdateStatus(String droneId, DroneStatus status, Instant at) {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(at, "at");
    if (droneId == null || !drones.containsKey(droneId)) {
      throw new StoreException(StoreException.Reason.NOT_FOUND, "drone " + droneId
          + " not found");
    }
    return new Change.UpdateDroneStatus(droneId, status, at);
  }

  void put(DroneRegistration d) {
    DroneRegistration old = drones.put(d.id(), d);
    if (old != null) {
      unindex(dronesByUser, old.userId(), old.id());
      unindex(dronesByWorkspace, key(old.userId(), old.workspaceId()), old.id());
    }
    index(dronesByUser, d.userId(), d.id());
    index(dronesByWorkspace, key(d.userId(), d.workspaceId()), d.id());
  }

  /** The drone with {@code id}; a change refers only to drones that exist. */
  DroneRegistration drone(String id) {
    DroneRegistration d = drones.get(id);
    if (d == null) {
      throw new IllegalStateException("the drone " + id + " does not exist");
    }
    return d;
  }

  /** The changes that recreate this part. */
  void snapshotInto(List<Change> out) {
    drones.values().forEach(d -> out.add(new Change.SaveDrone(d)));
  }

  int size() {
    return drones.size();
  }
}
