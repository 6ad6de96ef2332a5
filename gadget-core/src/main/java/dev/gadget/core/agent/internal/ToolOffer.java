package dev.gadget.core.agent.internal;

import static dev.gadget.core.agent.catalog.ToolSearch.CALL_TOOL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.catalog.ToolCatalog;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.catalog.ToolMatch;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.llm.ToolLoading;
import dev.gadget.core.model.Role;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools one run offers the model, round by round. Without deferral, every tool. With it, the
 * always-loaded tools and {@code search_tools} first; each tool the model loads (by a search, or
 * by calling it) then reaches it as the run's {@link ToolLoading} says:
 *
 * <ul>
 *   <li>{@link ToolLoading#APPEND}: appended to the tools in the order loaded: the list only
 *       grows at its end, so each request's tools are the previous request's followed by what
 *       was loaded since. Never more than the provider takes
 *       ({@link dev.gadget.core.llm.LlmClient#maxTools()}).
 *   <li>{@link ToolLoading#REFERENCE}: the tools never change; every deferred tool is sent as
 *       one to load ({@link #deferredDefinitions()}), and the result that loaded one refers to
 *       it ({@link #references()}).
 *   <li>{@link ToolLoading#IN_RESULT}: the tools never change ({@value ToolSearch#CALL_TOOL} is offered
 *       from the start); the search's result carries the loaded tools' definitions, and the
 *       model calls them through {@value ToolSearch#CALL_TOOL}.
 * </ul>
 *
 * Used on the run's thread.
 */
final class ToolOffer {
  private static final Logger log = LoggerFactory.getLogger(ToolOffer.class);
  /** What a search or a call answers of a tool loaded before. */
  private static final String ALREADY_LOADED = "already loaded";

  private final ToolCatalog catalog;
  private final ToolDeferral policy;
  private final int maxTools;
  private final ToolLoading loading;
  private final List<ToolDefinition> offered = new ArrayList<>();
  private final Set<String> deferred = new LinkedHashSet<>();
  private final Set<String> loaded = new LinkedHashSet<>();
  private final Map<String, List<String>> references = new LinkedHashMap<>();
  private int tokens;

  ToolOffer(ToolCatalog catalog, ToolDeferral policy, int maxTools, ToolLoading loading) {
    this.catalog = catalog;
    this.policy = policy;
    this.maxTools = maxTools;
    this.loading = loading;
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
      int own = loading == ToolLoading.IN_RESULT ? 2 : 1; // never cut by the provider's cap
      offered.addAll(keep.subList(0, Math.max(0, Math.min(keep.size(), maxTools - own))));
      offered.add(searchTool());
      if (loading == ToolLoading.IN_RESULT) {
        offered.add(callTool());
      }
      log.debug("{} of {} tools deferred: their definitions measure {} tokens, the budget is {}"
          + " ({})", deferred.size(), catalog.size(), all, budget, policy);
    }
    tokens = 0;
    for (ToolDefinition t : offered) {
      tokens += ToolCatalog.estimateTokens(t);
    }
  }

  /**
   * Loads the deferred tools that a resumed turn's rounds called (through {@value ToolSearch#CALL_TOOL}
   * too) or that their results loaded by reference, in order, before the turn's first request.
   */
  void preload(List<LlmMessage> resumed) {
    for (LlmMessage m : resumed) {
      for (LlmToolCall c : m.toolCalls()) {
        String name = CALL_TOOL.equals(c.name()) ? c.arguments().path("name").asText() : c.name();
        if (awaitsLoading(name)) {
          load(name, null);
        }
      }
      if (loading != ToolLoading.APPEND && m.role() == Role.TOOL && deferring()) {
        List<String> names = new ArrayList<>();
        ToolSearch.Result search = ToolSearch.NAME.equals(m.toolName())
            ? ToolSearch.read(m.content()) : null;
        if (search != null) {
          search.matches().forEach(match -> names.add(match.name()));
        } else if (m.content().replaceFirst("^Error: ", "")
            .startsWith(m.toolName() + ToolDeferral.NOT_LOADED)) {
          names.add(m.toolName());
        }
        names.removeIf(name -> !deferred.contains(name));
        if (!names.isEmpty() && loading == ToolLoading.REFERENCE) {
          references.put(m.toolCallId(), names);
        }
        names.forEach(name -> load(name, null)); // their definitions are in the resumed results
      }
    }
  }

  /**
   * The deferred tools to send as ones the model may load by reference
   * ({@link ToolLoading#REFERENCE}), in the catalog's order; empty otherwise.
   */
  List<ToolDefinition> deferredDefinitions() {
    if (loading != ToolLoading.REFERENCE || deferred.isEmpty()) {
      return List.of();
    }
    List<ToolDefinition> out = new ArrayList<>();
    deferred.forEach(name -> out.add(catalog.get(name).orElseThrow()));
    return out;
  }

  /** The tools each result loaded by reference, by the id of the call it answers. */
  Map<String, List<String>> references() {
    return Map.copyOf(references);
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
      // no other tool may take their names
      count += ToolSearch.NAME.equals(t.name()) || isCallTool(t.name()) ? 0 : 1;
    }
    return loading == ToolLoading.APPEND ? count : count + loaded.size();
  }

  /** Whether {@code name} is {@value ToolSearch#CALL_TOOL}, offered in this run. */
  boolean isCallTool(String name) {
    return loading == ToolLoading.IN_RESULT && deferring() && CALL_TOOL.equals(name);
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

  /** Answers the {@code search_tools} call {@code callId}: the best matches, loaded. */
  ToolResult search(String callId, JsonNode args) {
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
    StringBuilder definitions = new StringBuilder();
    for (ToolMatch m : matches) {
      String note = load(m.name(), callId);
      if (ALREADY_LOADED.equals(note) && loading == ToolLoading.REFERENCE) {
        // its definition again, here: an earlier one may have been compacted away
        references.computeIfAbsent(callId, id -> new ArrayList<>()).add(m.name());
      }
      notes.add(note);
      if (loading == ToolLoading.IN_RESULT) { // never refused: the tools do not grow
        definitions.append('\n').append(definitionJson(m.name()));
      }
    }
    String answer = ToolSearch.answer(q.asText(), matches, notes, deferred.size(),
        policy.matchThreshold());
    return ToolResult.ok(definitions.length() == 0 ? answer : answer + "\n\nTheir definitions; "
        + "call one through " + CALL_TOOL + " with its name and the arguments it asks for:"
        + definitions);
  }

  /**
   * Answers a call of a deferred tool that is not loaded yet: loads it and tells the model its
   * definition, so that it calls it again knowing its arguments. The tool does not run.
   */
  ToolResult loadOnCall(String callId, String name) {
    String note = load(name, callId);
    if (note != null && !note.equals(ALREADY_LOADED)) {
      return ToolResult.error(name + ToolDeferral.NOT_LOADED + "it is not loaded, and " + note);
    }
    return ToolResult.error(name + ToolDeferral.NOT_LOADED + "it was not loaded yet. It is loaded "
        + "now; call it again" + (loading == ToolLoading.IN_RESULT ? " through " + CALL_TOOL : "")
        + " with arguments that fit its definition"
        + (loading == ToolLoading.REFERENCE ? "." // the reference brings the definition
            : ":\n" + definitionJson(name)));
  }

  private String definitionJson(String name) {
    ToolDefinition def = catalog.get(name).orElseThrow();
    ObjectNode json = GadgetJson.mapper().createObjectNode();
    json.put("name", def.name());
    json.put("description", def.description());
    json.set("parameters", def.parameters());
    return json.toString();
  }

  /**
   * Loads {@code name} for the result of {@code callId} ({@code null}: a resumed turn's);
   * a note when it could not be or was already, else {@code null}.
   */
  private String load(String name, String callId) {
    if (loaded.contains(name)) {
      return ALREADY_LOADED;
    }
    if (loading == ToolLoading.APPEND && offered.size() >= maxTools) {
      return "not loaded: this provider takes at most " + maxTools + " tools in a request, and "
          + offered.size() + " are loaded";
    }
    ToolDefinition def = catalog.get(name).orElseThrow();
    loaded.add(name);
    if (loading == ToolLoading.APPEND) {
      offered.add(def);
    } else if (loading == ToolLoading.REFERENCE && callId != null) {
      references.computeIfAbsent(callId, id -> new ArrayList<>()).add(name);
    }
    if (loading != ToolLoading.IN_RESULT) { // in the result, a definition is a message's
      tokens += ToolCatalog.estimateTokens(def);
    }
    return null;
  }

  private static ToolDefinition callTool() {
    ObjectNode params = GadgetJson.mapper().createObjectNode();
    params.put("type", "object");
    ObjectNode props = params.putObject("properties");
    props.putObject("name").put("type", "string").put("description", "The name of a tool "
        + ToolSearch.NAME + " loaded");
    props.putObject("arguments").put("type", "object").put("description", "Its arguments, as "
        + "its definition asks");
    params.putArray("required").add("name").add("arguments");
    params.put("additionalProperties", false);
    return new ToolDefinition(CALL_TOOL, "Calls a tool that " + ToolSearch.NAME + " loaded, "
        + "with the arguments its definition (in the search's result) asks for.", params);
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
        + "best matches are loaded at once and listed with a line each; then call them "
        + (loading == ToolLoading.IN_RESULT ? "through " + CALL_TOOL : "like any other tool")
        + ". Search before you say a tool is missing.", params);
  }
}
