package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import java.util.List;

/**
 * {@code update_plan}: the plan the agent keeps for a task, as Codex's plan tool and Claude
 * Code's to-do list: a short list of steps, each {@code pending}, {@code in_progress} or
 * {@code completed}, written whole on every call (the latest call is the plan). It touches no
 * file; its arguments are the plan, so the turn's tool block stores it and a page draws it as a
 * checklist. At most {@link #MAX_STEPS} steps of {@link #MAX_STEP_LENGTH} characters, at most
 * one in progress. Thread-safe and stateless.
 */
public final class PlanTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "update_plan";
  /** The most steps a plan has. */
  public static final int MAX_STEPS = 20;
  /** The longest step, in characters. */
  public static final int MAX_STEP_LENGTH = 200;
  /** A step's states. */
  public static final List<String> STATES = List.of("pending", "in_progress", "completed");

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Keep a short plan for a task of several steps: give the whole list every time "
        + "(1 to " + MAX_STEPS + " steps, each pending, in_progress or completed; at most one "
        + "in_progress), and update it as you go. The user sees it as a checklist. Skip it for "
        + "a simple question.";
  }

  @Override
  public JsonNode parameters() {
    ObjectNode schema = GadgetJson.mapper().createObjectNode().put("type", "object");
    ObjectNode props = schema.putObject("properties");
    props.putObject("explanation").put("type", "string")
        .put("description", "optional: why the plan is what it is, or what changed");
    ObjectNode plan = props.putObject("plan").put("type", "array")
        .put("description", "the steps, in order");
    ObjectNode item = plan.putObject("items").put("type", "object");
    ObjectNode itemProps = item.putObject("properties");
    itemProps.putObject("step").put("type", "string").put("description", "what to do");
    ObjectNode status = itemProps.putObject("status").put("type", "string");
    STATES.forEach(status.putArray("enum")::add);
    item.putArray("required").add("step").add("status");
    schema.putArray("required").add("plan");
    return schema;
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) {
    JsonNode plan = args.get("plan");
    if (plan == null || !plan.isArray() || plan.isEmpty()) {
      throw new ToolException("\"plan\" must be a list of 1 to " + MAX_STEPS + " steps, each "
          + "{\"step\": \"…\", \"status\": \"pending\"|\"in_progress\"|\"completed\"}");
    }
    if (plan.size() > MAX_STEPS) {
      throw new ToolException("a plan has at most " + MAX_STEPS + " steps; got " + plan.size());
    }
    StringBuilder out = new StringBuilder("Plan updated:\n");
    int inProgress = 0;
    int done = 0;
    for (int i = 0; i < plan.size(); i++) {
      JsonNode s = plan.get(i);
      String step = s.path("step").isTextual() ? s.get("step").asText().strip() : "";
      String state = s.path("status").asText("");
      if (step.isEmpty()) {
        throw new ToolException("step " + (i + 1) + " needs a \"step\": what to do");
      }
      if (step.length() > MAX_STEP_LENGTH) {
        throw new ToolException("step " + (i + 1) + " is longer than " + MAX_STEP_LENGTH
            + " characters: keep steps short");
      }
      if (!STATES.contains(state)) {
        throw new ToolException("step " + (i + 1) + "'s \"status\" must be pending, "
            + "in_progress or completed; got \"" + state + "\"");
      }
      inProgress += state.equals("in_progress") ? 1 : 0;
      done += state.equals("completed") ? 1 : 0;
      out.append(state.equals("completed") ? "[x] " : state.equals("in_progress") ? "[>] "
          : "[ ] ").append(step).append('\n');
    }
    if (inProgress > 1) {
      throw new ToolException("at most one step may be in_progress; got " + inProgress);
    }
    return ToolResult.ok(out.append(done).append(" of ").append(plan.size())
        .append(" completed").toString());
  }
}
