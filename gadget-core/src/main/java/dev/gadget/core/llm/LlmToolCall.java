package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A tool call the model made, with its arguments parsed.
 *
 * @param id the call's id (generated when a server sends none, as Ollama does)
 * @param name the tool's name
 * @param arguments the arguments: a JSON object; when the model sent text that is not valid
 *     JSON, a string node holding that text, so the tool can report the error to the model
 */
public record LlmToolCall(String id, String name, JsonNode arguments) {
  public LlmToolCall {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(arguments, "arguments");
  }
}
