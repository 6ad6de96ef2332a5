package dev.gadget.core.agent.catalog;

import dev.gadget.core.agent.tools.EditFileTool;
import dev.gadget.core.agent.tools.GlobTool;
import dev.gadget.core.agent.tools.GrepTool;
import dev.gadget.core.agent.tools.ListDirTool;
import dev.gadget.core.agent.tools.PlanTool;
import dev.gadget.core.agent.tools.ReadFileTool;
import dev.gadget.core.agent.tools.RunCommandTool;
import dev.gadget.core.agent.tools.WriteFileTool;
import dev.gadget.core.llm.ToolLoading;
import java.util.Collection;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * When an agent loop defers tools: offers the model only the always-loaded ones and
 * {@code search_tools}, and loads the others as the model finds them. Immutable.
 *
 * <ul>
 *   <li>{@link #share(double)} ({@link #DEFAULT}: 10%): deferred when the definitions of all the
 *       tools would take more than that share of the turn's context budget;
 *   <li>{@link #ALWAYS}: deferred whenever there is a tool that is not always loaded;
 *   <li>{@link #NEVER}: every tool offered every round, as before (but a provider that takes
 *       only so many tools in a request, such as an OpenAI-compatible one's 128, still gets
 *       the rest deferred).
 * </ul>
 *
 * <p>The always-loaded tools are the coding tools by default ({@link #alwaysLoaded}); a search
 * returns {@link #searchLimit} tools (5 by default); a best match whose similarity is under
 * {@link #matchThreshold} (0.3 by default) is a mismatch; found tools are loaded as the client's
 * provider keeps its prompt cache best ({@link #loading}).
 */
public final class ToolDeferral {
  /**
   * What the answer to a call of a deferred tool the model had not loaded says after the tool's
   * name ({@code "Error: NAME did not run: …"}): the tool did not run; its definition follows.
   */
  public static final String NOT_LOADED = " did not run: ";
  /** The default share of the context budget tool definitions may take before deferral. */
  public static final double DEFAULT_SHARE = 0.10;
  /** How many tools a search returns by default. */
  public static final int DEFAULT_SEARCH_LIMIT = 5;
  /** The similarity under which a best match is a mismatch, by default. */
  public static final double DEFAULT_MATCH_THRESHOLD = 0.3;
  /** The tools that are always loaded by default: the coding tools. */
  public static final Set<String> CODING_TOOLS = Set.of(ReadFileTool.NAME, WriteFileTool.NAME,
      EditFileTool.NAME, ListDirTool.NAME, GlobTool.NAME, GrepTool.NAME, RunCommandTool.NAME,
      PlanTool.NAME);

  /** Deferred when the definitions would take more than 10% of the context budget. */
  public static final ToolDeferral DEFAULT = new ToolDeferral(Mode.SHARE, DEFAULT_SHARE,
      CODING_TOOLS, DEFAULT_SEARCH_LIMIT, DEFAULT_MATCH_THRESHOLD, null);
  /** Every tool that is not always loaded is deferred. */
  public static final ToolDeferral ALWAYS = DEFAULT.mode(Mode.ALWAYS);
  /** Nothing deferred (beyond a provider's own limit on the number of tools). */
  public static final ToolDeferral NEVER = DEFAULT.mode(Mode.NEVER);

  /** How deferral is decided. */
  public enum Mode {
    /** When the definitions pass a share of the budget. */
    SHARE,
    /** Always. */
    ALWAYS,
    /** Never. */
    NEVER
  }

  private final Mode mode;
  private final double share;
  private final Set<String> alwaysLoaded;
  private final int searchLimit;
  private final double matchThreshold;
  private final ToolLoading loading;

  private ToolDeferral(Mode mode, double share, Set<String> alwaysLoaded, int searchLimit,
      double matchThreshold, ToolLoading loading) {
    this.mode = mode;
    this.share = share;
    this.alwaysLoaded = Set.copyOf(alwaysLoaded);
    this.searchLimit = searchLimit;
    this.matchThreshold = matchThreshold;
    this.loading = loading;
  }

  /** Deferred when the definitions would take more than {@code share} (0 to 1) of the budget. */
  public static ToolDeferral share(double share) {
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException("the share of the context budget for tool definitions "
          + "must be from 0 to 1 (10% is 0.1); got " + share);
    }
    return new ToolDeferral(Mode.SHARE, share, CODING_TOOLS, DEFAULT_SEARCH_LIMIT,
        DEFAULT_MATCH_THRESHOLD, null);
  }

  /**
   * Reads {@code always}, {@code never}, {@code auto} (the default share), a percentage such as
   * {@code 10%} or a fraction such as {@code 0.1}.
   *
   * @throws IllegalArgumentException with a message that says what is accepted
   */
  public static ToolDeferral parse(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    switch (t) {
      case "always":
        return ALWAYS;
      case "never":
        return NEVER;
      case "auto":
        return DEFAULT;
      default:
        break;
    }
    try {
      return t.endsWith("%") ? share(Double.parseDouble(t.substring(0, t.length() - 1)) / 100)
          : share(Double.parseDouble(t));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("tool deferral is always, never, auto or a share of the "
          + "context budget such as 10% or 0.1; got \"" + text + "\"");
    }
  }

  private ToolDeferral mode(Mode m) {
    return new ToolDeferral(m, share, alwaysLoaded, searchLimit, matchThreshold, loading);
  }

  /**
   * This policy deciding when to defer as {@code other} does (its mode and share), keeping this
   * one's always-loaded tools, search limit, threshold and way of loading: a chat's setting over
   * its drone's.
   */
  public ToolDeferral when(ToolDeferral other) {
    return new ToolDeferral(other.mode, other.share, alwaysLoaded, searchLimit, matchThreshold,
        loading);
  }

  /** This policy with {@code names} always loaded instead of the coding tools. */
  public ToolDeferral alwaysLoaded(Collection<String> names) {
    return new ToolDeferral(mode, share, Set.copyOf(names), searchLimit, matchThreshold,
        loading);
  }

  /** This policy with searches returning {@code limit} tools (1 to 20). */
  public ToolDeferral searchLimit(int limit) {
    if (limit < 1 || limit > 20) {
      throw new IllegalArgumentException("a search returns from 1 to 20 tools; got " + limit);
    }
    return new ToolDeferral(mode, share, alwaysLoaded, limit, matchThreshold, loading);
  }

  /** This policy with a best match under {@code threshold} (0 to 1) reported as a mismatch. */
  public ToolDeferral matchThreshold(double threshold) {
    if (!(threshold >= 0 && threshold <= 1)) {
      throw new IllegalArgumentException("the match threshold is from 0 to 1; got " + threshold);
    }
    return new ToolDeferral(mode, share, alwaysLoaded, searchLimit, threshold, loading);
  }

  /**
   * This policy loading the tools the model finds as {@code loading} says, whatever the
   * client's provider would ({@link dev.gadget.core.llm.LlmClient#toolLoading()}); {@code null}
   * for the provider's way (the default). {@link ToolLoading#REFERENCE} needs a client that
   * sends {@link dev.gadget.core.llm.LlmRequest#deferredTools()} and references
   * ({@link dev.gadget.core.llm.AnthropicClient}); another would leave the model without the
   * definitions.
   */
  public ToolDeferral loading(ToolLoading loading) {
    return new ToolDeferral(mode, share, alwaysLoaded, searchLimit, matchThreshold, loading);
  }

  /** How found tools are loaded, or {@code null} for the client's way. */
  public ToolLoading loading() {
    return loading;
  }

  /** How deferral is decided. */
  public Mode mode() {
    return mode;
  }

  /** The share of the budget, for {@link Mode#SHARE}. */
  public double share() {
    return share;
  }

  /** The names of the tools that are never deferred. */
  public Set<String> alwaysLoaded() {
    return alwaysLoaded;
  }

  /** How many tools a search returns. */
  public int searchLimit() {
    return searchLimit;
  }

  /** The similarity under which a best match is a mismatch. */
  public double matchThreshold() {
    return matchThreshold;
  }

  /**
   * Whether a turn defers: its tools' definitions measure {@code definitionTokens}, its context
   * budget is {@code budget} tokens, and {@code deferrable} tools are not always loaded.
   */
  public boolean defers(int definitionTokens, int budget, int deferrable) {
    if (deferrable == 0) {
      return false;
    }
    switch (mode) {
      case ALWAYS:
        return true;
      case NEVER:
        return false;
      default:
        return definitionTokens > share * budget;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ToolDeferral d && d.mode == mode && d.share == share
        && d.alwaysLoaded.equals(alwaysLoaded) && d.searchLimit == searchLimit
        && d.matchThreshold == matchThreshold && d.loading == loading;
  }

  @Override
  public int hashCode() {
    return Objects.hash(mode, share, alwaysLoaded, searchLimit, matchThreshold, loading);
  }

  @Override
  public String toString() {
    String when = mode == Mode.SHARE ? Math.round(share * 1000) / 10.0 + "% of the budget"
        : mode.name().toLowerCase(Locale.ROOT);
    return "ToolDeferral{" + when + ", search " + searchLimit + ", threshold " + matchThreshold
        + ", always loaded " + alwaysLoaded.size()
        + (loading == null ? "" : ", loading " + loading.name().toLowerCase(Locale.ROOT)) + "}";
  }
}
