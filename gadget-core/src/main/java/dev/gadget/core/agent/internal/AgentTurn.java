package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentLimits;
import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmToolCall;
import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One turn of an {@code AgentLoop}: alternates {@link ModelRound model round trips} and
 * {@link ToolRunner tool calls} until the model asks for no tool, a limit is hit, the model call
 * fails or the run is cancelled; then ends the run with exactly one outcome.
 */
public final class AgentTurn implements AgentRun {
  private static final Logger log = LoggerFactory.getLogger(AgentTurn.class);

  private final LoopSettings settings;
  private final AgentRequest request;
  private final RunState state = new RunState();
  private final RunEvents events;
  private final TurnJournal journal;
  private final ModelRound model;
  private final ToolRunner toolRunner;
  private final ToolOffer offer;

  /** A turn that has not started yet; its events go to {@code listener}. */
  public AgentTurn(LoopSettings settings, AgentRequest request, AgentListener listener) {
    this.settings = settings;
    this.request = request;
    this.events = new RunEvents(listener, settings.listenerWarning());
    this.journal = new TurnJournal(settings.clock());
    this.offer = new ToolOffer(settings.catalog(), settings.deferral(),
        Math.max(1, settings.llm().maxTools()), settings.deferral().loading() != null
            ? settings.deferral().loading()
            : java.util.Objects.requireNonNullElse(settings.llm().toolLoading(),
                dev.gadget.core.llm.ToolLoading.APPEND));
    this.model = new ModelRound(settings, request, state, events, journal, offer);
    this.toolRunner = new ToolRunner(settings, state, events, journal, offer);
  }

  @Override
  public void cancel() {
    if (state.cancel()) {
      finish(outcome(AgentOutcome.Status.CANCELLED, "The turn was cancelled.", null));
    }
  }

  @Override
  public CompletableFuture<AgentOutcome> outcome() {
    return events.outcome();
  }

  /** Runs the turn on the current thread, unless it was cancelled before. */
  public void execute() {
    if (!state.start()) {
      return;
    }
    AgentOutcome outcome;
    Error fatal = null;
    try {
      outcome = loop();
    } catch (Cancelled e) {
      outcome = outcome(AgentOutcome.Status.CANCELLED, "The turn was cancelled.", null);
    } catch (LlmException e) {
      outcome = outcome(AgentOutcome.Status.ERROR, "The model call failed: " + e.getMessage(), e);
    } catch (IOException e) {
      outcome = outcome(AgentOutcome.Status.ERROR,
          "The project directory cannot be used: " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      log.error("the agent loop failed", e);
      outcome = outcome(AgentOutcome.Status.ERROR, "The agent failed: " + e, e);
      fatal = e instanceof Error ? (Error) e : null;
    } finally {
      state.end();
      Thread.interrupted(); // a cancel's interrupt must not leak into the executor's thread
    }
    finish(outcome);
    if (fatal != null) {
      throw fatal;
    }
  }

  private AgentOutcome loop() throws IOException {
    RunToolContext ctx = new RunToolContext(new ProjectPaths(request.projectDir()),
        settings.sandbox());
    state.attach(ctx);
    offer.decide(model.budget());
    offer.preload(request.resume());
    Map<LlmMessage, String> origins = new IdentityHashMap<>();
    List<LlmMessage> messages = TurnMessages.opening(settings.systemPrompt(), request,
        ctx.projectDir(), offer.definitions(), settings.sandbox(), origins);
    journal.prompt(request.prompt());
    model.open(origins, messages.size() - 1 - request.resume().size());

    AgentLimits limits = settings.limits();
    LlmToolCall previous = null;
    int repeats = 0;
    for (int iteration = 1; ; iteration++) {
      state.checkCancelled();
      int n = iteration;
      events.emit(l -> l.onIteration(n));
      LlmCompletion reply = model.call(messages);
      journal.reply(reply);
      dev.gadget.core.model.TurnStats soFar = journal.stats();
      events.emit(l -> l.onStats(soFar));
      messages.add(LlmMessage.assistant(reply)); // signed reasoning goes back as it came
      if (reply.toolCalls().isEmpty()) {
        return outcome(AgentOutcome.Status.FINISHED, null, null);
      }
      for (LlmToolCall call : reply.toolCalls()) {
        state.checkCancelled();
        if (previous != null && previous.name().equals(call.name())
            && previous.arguments().equals(call.arguments())) {
          repeats++;
        } else {
          repeats = 1;
        }
        previous = call;
        if (repeats >= limits.repeatedToolCallLimit()) {
          return outcome(AgentOutcome.Status.LIMIT_HIT, "Stopped: the model called "
              + call.name() + " with the same arguments " + repeats + " times in a row, which "
              + "looks like a loop (limit: " + limits.repeatedToolCallLimit() + "). The work "
              + "so far is kept; send another prompt to go on.", null);
        }
        ToolResult result = toolRunner.run(ctx, call);
        messages.add(LlmMessage.tool(call, result.forModel()));
      }
      if (iteration >= limits.maxRoundTrips()) {
        return outcome(AgentOutcome.Status.LIMIT_HIT, "Stopped: the model made "
            + iteration + " round trips in this turn, the limit. The work so far is kept; "
            + "send another prompt to go on.", null);
      }
    }
  }

  /** The outcome of the turn as it stands. */
  public AgentOutcome outcome(AgentOutcome.Status status, String message, Throwable error) {
    return journal.outcome(status, message, error);
  }

  /** Ends the run with {@code outcome}, unless it has ended already. */
  public void finish(AgentOutcome outcome) {
    events.finish(outcome);
  }
}
