package dev.gadget.core.agent.synth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A synthesized tool as its {@code tool.json} holds it: the name the model calls, what it does,
 * the JSON Schema of its arguments, the language of its executable ({@code sh} or
 * {@code python3}) and the test cases it passed. Its code is the file {@link #entry()} next to
 * {@code tool.json}.
 *
 * @param name letters, digits and {@code _}, from 3 to 48, starting with a letter
 * @param description what it does and when to use it
 * @param parameters an {@code object} JSON Schema
 * @param language {@code sh} or {@code python3}
 * @param tests the cases every version must pass
 * @param components the project's other synthesized tools this one runs (a composite tool),
 *     empty for none
 */
public record ToolSpec(String name, String description, JsonNode parameters, String language,
    List<TestCase> tests, List<String> components) {
  /** The file that describes a tool in its folder. */
  public static final String FILE = "tool.json";
  /** The languages a tool may be written in. */
  public static final List<String> LANGUAGES = List.of("sh", "python3");
  /** The most test cases. */
  public static final int MAX_TESTS = 20;
  /** The longest description. */
  public static final int MAX_DESCRIPTION = 1024;
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{2,47}");

  /**
   * One test case: the tool is run with {@code arguments}, and passes when it exits with 0 and
   * its output contains {@code expect}.
   *
   * @param arguments the arguments, a JSON object
   * @param expect text the output must contain
   */
  public record TestCase(JsonNode arguments, String expect) {
    public TestCase {
      Objects.requireNonNull(arguments, "arguments");
      Objects.requireNonNull(expect, "expect");
    }
  }

  public ToolSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(parameters, "parameters");
    Objects.requireNonNull(language, "language");
    tests = List.copyOf(tests);
    components = components == null ? List.of() : List.copyOf(components);
  }

  /** The executable's file name: {@code run.sh} or {@code run.py}. */
  public String entry() {
    return language.equals("python3") ? "run.py" : "run.sh";
  }

  /** What is wrong with this spec, in words; empty when it can be registered. */
  public List<String> problems() {
    List<String> out = new ArrayList<>();
    if (!NAME.matcher(name).matches()) {
      out.add("the name \"" + name + "\" must be 3 to 48 lowercase letters, digits and _, "
          + "starting with a letter");
    }
    if (description.isBlank()) {
      out.add("the description is empty: say what the tool does and when to use it");
    } else if (description.length() > MAX_DESCRIPTION) {
      out.add("the description has more than " + MAX_DESCRIPTION + " characters");
    }
    if (!parameters.isObject() || !"object".equals(parameters.path("type").asText())) {
      out.add("parameters must be a JSON Schema of type object");
    }
    for (String c : components) {
      if (!NAME.matcher(c).matches() || c.equals(name)) {
        out.add("the component \"" + c + "\" is not another tool's name");
      }
    }
    if (!LANGUAGES.contains(language)) {
      out.add("the language must be sh or python3, not \"" + language + "\"");
    }
    if (tests.isEmpty() || tests.size() > MAX_TESTS) {
      out.add("give 1 to " + MAX_TESTS + " test cases; got " + tests.size());
    }
    for (int i = 0; i < tests.size(); i++) {
      TestCase t = tests.get(i);
      if (!t.arguments().isObject()) {
        out.add("test " + (i + 1) + "'s arguments must be a JSON object");
        continue;
      }
      for (JsonNode r : parameters.path("required")) {
        if (!t.arguments().has(r.asText())) {
          out.add("test " + (i + 1) + " lacks the required argument \"" + r.asText() + "\"");
        }
      }
      if (t.expect().isEmpty()) {
        out.add("test " + (i + 1) + " expects nothing: give text its output must contain");
      }
    }
    return out;
  }

  /** The spec as {@code tool.json} holds it. */
  public ObjectNode toJson() {
    ObjectNode o = GadgetJson.mapper().createObjectNode();
    o.put("name", name).put("description", description).set("parameters", parameters);
    o.put("language", language).put("entry", entry());
    if (!components.isEmpty()) {
      components.forEach(o.putArray("components")::add);
    }
    ArrayNode ts = o.putArray("tests");
    for (TestCase t : tests) {
      ts.addObject().put("expect", t.expect()).set("arguments", t.arguments());
    }
    return o;
  }

  /**
   * A spec from {@code json} ({@code tool.json}, or {@code create_tool}'s arguments, whose
   * {@code code} is ignored here).
   *
   * @throws IllegalArgumentException in words when a field is missing or of the wrong type
   */
  public static ToolSpec fromJson(JsonNode json) {
    List<TestCase> tests = new ArrayList<>();
    JsonNode ts = json.path("tests");
    if (!ts.isMissingNode() && !ts.isArray()) {
      throw new IllegalArgumentException("\"tests\" must be a list of {arguments, expect}");
    }
    for (JsonNode t : ts) {
      if (!t.path("expect").isTextual()) {
        throw new IllegalArgumentException("each test needs \"expect\": text the output must "
            + "contain");
      }
      tests.add(new TestCase(t.path("arguments").isMissingNode()
          ? GadgetJson.mapper().createObjectNode() : t.get("arguments"),
          t.get("expect").asText()));
    }
    List<String> components = new ArrayList<>();
    JsonNode cs = json.path("components");
    if (!cs.isMissingNode() && !cs.isArray()) {
      throw new IllegalArgumentException("\"components\" must be a list of tool names");
    }
    cs.forEach(c -> components.add(c.asText()));
    return new ToolSpec(text(json, "name"), text(json, "description"),
        json.path("parameters").isMissingNode() ? GadgetJson.mapper().createObjectNode()
            : json.get("parameters"),
        text(json, "language").toLowerCase(Locale.ROOT), tests, components);
  }

  private static String text(JsonNode json, String field) {
    JsonNode v = json.get(field);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("\"" + field + "\" must be text");
    }
    return v.asText();
  }
}
