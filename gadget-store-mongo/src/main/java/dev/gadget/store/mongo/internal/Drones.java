package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Sorts.ascending;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Updates;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The {@code drones} collection: drone registrations, saved by upsert on their id, found by id
 * or by a user's workspace, and their status with the time they were last seen.
 */
public final class Drones {
  private final Operations ops;
  private final MongoCollection<Document> drones;

  public Drones(Operations ops) {
    this.ops = ops;
    this.drones = ops.collection(Schema.DRONES);
  }

  public void saveDrone(DroneRegistration drone) {
    Objects.requireNonNull(drone, "drone");
    ops.run("saveDrone", "drone " + drone.id(), () -> drones.replaceOne(
        eq("_id", drone.id()), Codecs.drone(drone), new ReplaceOptions().upsert(true)));
  }

  public Optional<DroneRegistration> findDrone(String id) {
    return ops.findOne("findDrone", drones, eq("_id", id), Codecs::drone);
  }

  /** If several match, the one with the smallest id. */
  public Optional<DroneRegistration> findDroneByWorkspace(String userId, String workspaceId) {
    return ops.call("findDroneByWorkspace", "drone", () -> Optional.ofNullable(
        drones.find(and(eq("userId", userId), eq("workspaceId", workspaceId)))
            .sort(ascending("_id")).first()).map(Codecs::drone));
  }

  public List<DroneRegistration> listDrones(String userId) {
    return ops.findAll("listDrones", drones, eq("userId", userId), ascending("_id"),
        Codecs::drone);
  }

  public void updateDroneStatus(String droneId, DroneStatus status, Instant at) {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(at, "at");
    List<Bson> sets = new ArrayList<>();
    sets.add(Updates.set("status", Fields.wire(status)));
    sets.addAll(Fields.setInstant("lastSeenAt", at));
    ops.updateExisting("updateDroneStatus", drones, "drone " + droneId, droneId,
        Updates.combine(sets));
  }
}
