package dev.gadget.core.agent.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.stream.StreamChunk;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the tool calls of one run: looks the tool up, runs it, turns what it returned or threw into
 * the {@link ToolResult} the model reads, and reports the call to the listener and the journal.
 * Used on the run's thread.
 */
public final class ToolRunner {
  private static final Logger log = LoggerFactory.getLogger(ToolRunner.class);

  private final ToolSet tools;
  private final Clock clock;
  private final RunState state;
  private final RunEvents events;
  private final TurnJournal journal;
  private final Approvals approvals;
  private final ToolOffer offer;

  /** Runs the tools of {@code settings} for one run, as {@code offer} offers them. */
  ToolRunner(LoopSettings settings, RunState state, RunEvents events, TurnJournal journal,
      ToolOffer offer) {
    this.offer = offer;
    this.tools = settings.tools();
    this.clock = settings.clock();
    this.state = state;
    this.events = events;
    this.journal = journal;
    this.approvals = settings.approvals();
  }

  /**
   * Runs {@code call}; a tool's failure is its result, not an exception.
   *
   * @throws Cancelled if the run was cancelled while the tool ran (after reporting it)
   */
  public ToolResult run(RunToolContext ctx, LlmToolCall asked) {
    // a call through call_tool is the call of the tool it names, to the listener and the journal
    LlmToolCall call = offer.isCallTool(asked.name()) ? unwrap(asked) : asked;
    // a search, or a call of a tool not loaded yet, runs nothing: nothing to approve
    boolean loadsOnly = offer.deferring() && (ToolSearch.NAME.equals(call.name())
        || offer.awaitsLoading(call.name()) || offer.isCallTool(call.name()));
    ToolApproval approval = loadsOnly ? null
        : approvals.decide(ctx, call, parametersText(call.arguments()),
            tools.get(call.name()) instanceof dev.gadget.core.agent.synth.SynthesizedTool);
    ToolCall started = new ToolCall(call.id(), call.name(), parametersText(call.arguments()),
        null, approval);
    events.emit(l -> l.onToolStart(started));
    Instant t0 = clock.instant();
    ctx.outputTo(text -> events.emit(l -> l.onToolOutput(started, text)));
    ToolResult result;
    try {
      result = approval != null && !approval.approved()
          ? ToolResult.error("denied: " + (approval.reason() == null
              ? "the call was not approved" : approval.reason()) + ". It did not run.")
          : execute(ctx, call);
    } finally {
      ctx.outputTo(null);
    }
    boolean wasCancelled = state.isCancelled();
    if (wasCancelled && !result.error()) {
      result = new ToolResult(result.output() + "\n(the turn was cancelled while "
          + call.name() + " ran)", true, result.steps());
    }
    Duration duration = Duration.between(t0, clock.instant());
    ToolCall finished = started.withOutcome(result.forModel(), result.error(),
        duration.toMillis()).withSteps(result.steps());
    journal.toolRan(finished);
    journal.toolTook(finished, duration);
    boolean success = !result.error();
    events.emit(l -> l.onToolEnd(finished, success, duration));
    TurnStats soFar = journal.stats();
    events.emit(l -> l.onStats(soFar));
    events.emit(l -> l.onChunk(new StreamChunk.ToolCallChunk(finished)));
    if (wasCancelled) {
      throw new Cancelled();
    }
    return result;
  }

  /**
   * The call a {@code call_tool} call stands for: the tool it names with its arguments; a call
   * that names none is left as it is (and answered as a tool that does not exist would be).
   */
  private static LlmToolCall unwrap(LlmToolCall via) {
    JsonNode name = via.arguments().path("name");
    if (!name.isTextual() || name.asText().isBlank()) {
      return via;
    }
    JsonNode args = via.arguments().path("arguments");
    if (args.isTextual()) { // some models send the arguments as a JSON text
      try {
        JsonNode parsed = GadgetJson.mapper().readTree(args.asText());
        args = parsed != null && parsed.isObject() ? parsed : args;
      } catch (java.io.IOException e) {
        // not JSON: answered as arguments that are not an object
      }
    }
    return new LlmToolCall(via.id(), name.asText(), args.isMissingNode() || args.isNull()
        ? GadgetJson.mapper().createObjectNode() : args);
  }

  /** Looks the tool up, checks the arguments and runs it; never throws. */
  private ToolResult execute(RunToolContext ctx, LlmToolCall call) {
    if (offer.isCallTool(call.name())) { // not unwrapped: it named no tool
      return ToolResult.error(ToolSearch.CALL_TOOL + " needs the \"name\" of a tool "
          + ToolSearch.NAME + " loaded and its \"arguments\"; got: "
          + parametersText(call.arguments()));
    }
    Tool tool = tools.get(call.name());
    if (tool == null && offer.deferring() && ToolSearch.NAME.equals(call.name())) {
      return call.arguments().isObject() ? offer.search(call.id(), call.arguments())
          : ToolResult.error("the arguments of " + ToolSearch.NAME + " must be a JSON object "
              + "with a \"query\"; got: " + parametersText(call.arguments()));
    }
    JsonNode args = call.arguments().isNull() || call.arguments().isMissingNode()
        ? GadgetJson.mapper().createObjectNode() : call.arguments();
    try {
      if (tool == null) {
        return ToolResult.error("there is no tool named \"" + call.name() + "\"; " + (offer
            .deferring() ? ToolSearch.NAME + " finds the tools that are not loaded yet"
            : "the tools are: " + tools.names()));
      }
      if (!args.isObject()) {
        return ToolResult.error("the arguments of " + call.name() + " must be a JSON object; "
            + "got: " + parametersText(args));
      }
      if (offer.awaitsLoading(call.name())) {
        return offer.loadOnCall(call.id(), call.name());
      }
      ToolResult result = tool.execute(args, ctx);
      return result != null ? result : ToolResult.error(call.name() + " returned no result");
    } catch (ToolException e) {
      return ToolResult.error(e.getMessage());
    } catch (InterruptedException e) {
      return ToolResult.error("interrupted: the turn was cancelled while " + call.name()
          + " ran");
    } catch (Exception e) {
      log.debug("tool {} threw", call.name(), e);
      return ToolResult.error(call.name() + " failed: " + e);
    }
  }

  private static String parametersText(JsonNode arguments) {
    return arguments.isTextual() ? arguments.asText() : arguments.toString();
  }
}
