package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A tool offered to the model.
 *
 * @param name the tool's name
 * @param description what it does, for the model
 * @param parameters the JSON schema of its arguments (an {@code object} schema)
 */
public record ToolDefinition(String name, String description, JsonNode parameters) {
  public ToolDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(parameters, "parameters");
  }
}
