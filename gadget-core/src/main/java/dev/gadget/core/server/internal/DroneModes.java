package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.DroneRegistration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The drones a page lists, each connected one with its workspace mode as the server knows it. */
final class DroneModes {
  private DroneModes() {}

  /** {@code drones} as JSON, with {@code "mode"} on each drone that is connected now. */
  static List<ObjectNode> withModes(List<DroneRegistration> drones, DroneRouter router) {
    List<ObjectNode> out = new ArrayList<>();
    for (DroneRegistration d : drones) {
      ObjectNode json = GadgetJson.mapper().valueToTree(d);
      ConnectedDrone live = router.find(d.id());
      if (live != null && live.isConnected()) {
        json.put("mode", live.mode.name().toLowerCase(Locale.ROOT));
      }
      out.add(json);
    }
    return out;
  }
}
