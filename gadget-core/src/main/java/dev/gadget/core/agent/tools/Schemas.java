package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;

/** Builds the JSON schema of a tool's arguments. */
final class Schemas {
  private final ObjectNode schema = GadgetJson.mapper().createObjectNode();
  private final ObjectNode properties;
  private final ArrayNode required;

  private Schemas() {
    schema.put("type", "object");
    properties = schema.putObject("properties");
    required = schema.putArray("required");
  }

  static Schemas object() {
    return new Schemas();
  }

  Schemas required(String name, String type, String description) {
    property(name, type, description);
    required.add(name);
    return this;
  }

  Schemas optional(String name, String type, String description) {
    property(name, type, description);
    return this;
  }

  private void property(String name, String type, String description) {
    properties.putObject(name).put("type", type).put("description", description);
  }

  ObjectNode build() {
    return schema.deepCopy();
  }
}
