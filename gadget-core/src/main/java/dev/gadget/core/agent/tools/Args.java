package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.ToolException;

/** Reads tool arguments, answering the model clearly when one is missing or of the wrong type. */
final class Args {
  private Args() {}

  static String string(JsonNode args, String name) {
    JsonNode v = args.get(name);
    if (v == null || v.isNull()) {
      throw new ToolException("missing required argument \"" + name + "\" (a string)");
    }
    if (!v.isTextual()) {
      throw new ToolException("argument \"" + name + "\" must be a string");
    }
    return v.asText();
  }

  static String string(JsonNode args, String name, String defaultValue) {
    JsonNode v = args.get(name);
    if (v == null || v.isNull()) {
      return defaultValue;
    }
    if (!v.isTextual()) {
      throw new ToolException("argument \"" + name + "\" must be a string");
    }
    return v.asText();
  }

  /** An optional integer; models often send numbers as strings, so {@code "3"} is taken too. */
  static Integer integer(JsonNode args, String name) {
    JsonNode v = args.get(name);
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isIntegralNumber() && v.canConvertToInt()) {
      return v.asInt();
    }
    if (v.isTextual() && v.asText().strip().matches("-?\\d{1,9}")) {
      return Integer.parseInt(v.asText().strip());
    }
    throw new ToolException("argument \"" + name + "\" must be an integer");
  }

  static boolean bool(JsonNode args, String name) {
    JsonNode v = args.get(name);
    if (v == null || v.isNull()) {
      return false;
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isTextual() && (v.asText().equals("true") || v.asText().equals("false"))) {
      return Boolean.parseBoolean(v.asText());
    }
    throw new ToolException("argument \"" + name + "\" must be true or false");
  }
}
