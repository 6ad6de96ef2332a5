package dev.gadget.core.agent.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.catalog.ToolCatalog;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.catalog.ToolMatch;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.llm.ToolDefinition;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools one run offers the model, round by round. Without deferral, every tool. With it, the
 * always-loaded tools and {@code search_tools} first, then each tool the model loads (by a search,
 * or by calling it), appended in the order loaded: the list only grows at its end, so each
 * request's tools are the previous request's followed by what was loaded since (the provider's
 * cached prefix up to there holds). Never more than the provider takes
 * ({@link dev.gadget.core.llm.LlmClient#maxTools()}). Used on the run's thread.
 */
final class ToolOffer {
  private static final Logger log = LoggerFactory.getLogger(ToolOffer.class);

  private final ToolCatalog catalog;
  private final ToolDeferral policy;
  private final int maxTools;
  private final List<ToolDefinition> offered = new ArrayList<>();
  private final Set<String> deferred = new LinkedHashSet<>();
  private final Set<String> loaded = new LinkedHashSet<>();
  private int tokens;

  ToolOffer(ToolCatalog catalog, ToolDeferral policy, int maxTools) {
    this.catalog = catalog;
    this.policy = policy;
    this.maxTools = maxTools;
    offered.addAll(catalog.definitions()); // until decide: everything, as without deferral
    tokens = catalog.tokens();
  }

  /**
   * Decides whether this run defers, for a context budget of {@code budget} tokens; until then
   * every tool is offered.
   */
  void decide(int budget) {
    offered.clear();
    deferred.clear();
    List<ToolDefinition> keep = new ArrayList<>();
    for (ToolDefinition t : catalog.definitions()) {
      if (policy.alwaysLoaded().contains(t.name())) {
        keep.add(t);
      } else {
        deferred.add(t.name());
      }
    }
    int all = catalog.tokens();
    boolean tooMany = catalog.size() > maxTools;
    if (!policy.defers(all, budget, deferred.size()) && !(tooMany && !deferred.isEmpty())) {
      deferred.clear();
      offered.addAll(catalog.definitions());
    } else {
      offered.addAll(keep);
      offered.add(searchTool());
      log.debug("{} of {} tools deferred: their definitions measure {} tokens, the budget is {}"
          + " ({})", deferred.size(), catalog.size(), all, budget, policy);
    }
    tokens = 0;
    for (ToolDefinition t : offered) {
      tokens += ToolCatalog.estimateTokens(t);
    }
  }

  /**
   * Loads the deferred tools among {@code names} (the calls of a resumed turn's rounds, which
   * the model made with those tools loaded), in order, before the turn's first request.
   */
  void preload(Iterable<String> names) {
    for (String name : names) {
      if (awaitsLoading(name)) {
        load(name);
      }
    }
  }

  /** The definitions to send now, in order. */
  List<ToolDefinition> definitions() {
    return offered.size() > maxTools ? offered.subList(0, maxTools) : List.copyOf(offered);
  }

  /** The estimated tokens of {@link #definitions()}. */
  int tokens() {
    return tokens;
  }

  /** How many tools the model can call now ({@code search_tools} not counted). */
  int loadedCount() {
    int count = 0;
    for (ToolDefinition t : definitions()) {
      count += ToolSearch.NAME.equals(t.name()) ? 0 : 1; // no other tool may take its name
    }
    return count;
  }

  /** How many deferred tools the model has not loaded (yet). */
  int deferredCount() {
    int waiting = 0;
    for (String name : deferred) {
      waiting += loaded.contains(name) ? 0 : 1;
    }
    return waiting;
  }

  /** Whether tools are deferred in this run. */
  boolean deferring() {
    return !deferred.isEmpty();
  }

  /** Whether {@code name} is a deferred tool the model has not loaded yet. */
  boolean awaitsLoading(String name) {
    return deferred.contains(name) && !loaded.contains(name);
  }

  /** Answers a {@code search_tools} call: the best matches, loaded. */
  ToolResult search(JsonNode args) {
    JsonNode q = args.path("query");
    if (!q.isTextual() || q.asText().isBlank()) {
      return ToolResult.error("search_tools needs a \"query\": what you want to do, in a few "
          + "words, or a tool's name");
    }
    int limit = policy.searchLimit();
    if (args.path("limit").canConvertToInt() && args.path("limit").asInt() > 0) {
      limit = Math.min(20, args.path("limit").asInt());
    }
    List<ToolMatch> matches = catalog.search(q.asText(), limit, deferred::contains);
    List<String> notes = new ArrayList<>();
    for (ToolMatch m : matches) {
      notes.add(load(m.name()));
    }
    return ToolResult.ok(ToolSearch.answer(q.asText(), matches, notes, deferred.size(),
        policy.matchThreshold()));
  }

  /**
   * Answers a call of a deferred tool that is not loaded yet: loads it and tells the model its
   * definition, so that it calls it again knowing its arguments. The tool does not run.
   */
  ToolResult loadOnCall(String name) {
    ToolDefinition def = catalog.get(name).orElseThrow();
    String note = load(name);
    if (note != null && !note.equals("already loaded")) {
      return ToolResult.error(name + ToolDeferral.NOT_LOADED + "it is not loaded, and " + note);
    }
    ObjectNode json = GadgetJson.mapper().createObjectNode();
    json.put("name", def.name());
    json.put("description", def.description());
    json.set("parameters", def.parameters());
    return ToolResult.error(name + ToolDeferral.NOT_LOADED + "it was not loaded yet. It is loaded "
        + "now; call it again with arguments that fit its definition:\n" + json);
  }

  /** Loads {@code name}; a note when it could not be or was already, else {@code null}. */
  private String load(String name) {
    if (loaded.contains(name)) {
      return "already loaded";
    }
    if (offered.size() >= maxTools) {
      return "not loaded: this provider takes at most " + maxTools + " tools in a request, and "
          + offered.size() + " are loaded";
    }
    ToolDefinition def = catalog.get(name).orElseThrow();
    loaded.add(name);
    offered.add(def);
    tokens += ToolCatalog.estimateTokens(def);
    return null;
  }

  private ToolDefinition searchTool() {
    Set<String> sources = new TreeSet<>();
    int local = 0;
    for (String name : deferred) {
      int cut = name.indexOf("__");
      if (cut > 0) {
        sources.add(name.substring(0, cut));
      } else {
        local++;
      }
    }
    StringBuilder from = new StringBuilder();
    if (!sources.isEmpty()) {
      from.append("the MCP servers ").append(String.join(", ", sources));
    }
    if (local > 0) {
      from.append(from.length() > 0 ? " and " : "").append(local)
          .append(" of the application's own");
    }
    ObjectNode params = GadgetJson.mapper().createObjectNode();
    params.put("type", "object");
    ObjectNode props = params.putObject("properties");
    props.putObject("query").put("type", "string").put("description", "What you want to do, "
        + "in a few words (\"open an issue on GitHub\"), or a tool's name");
    props.putObject("limit").put("type", "integer").put("minimum", 1).put("maximum", 20)
        .put("description", "How many tools to return (default " + policy.searchLimit() + ")");
    params.putArray("required").add("query");
    params.put("additionalProperties", false);
    return new ToolDefinition(ToolSearch.NAME, deferred.size() + " more tools (from " + from
        + ") are not loaded yet. Search them by what you want to do, or by a tool's name: the "
        + "best matches are loaded at once and listed with a line each; then call them like "
        + "any other tool. Search before you say a tool is missing.", params);
  }
}
