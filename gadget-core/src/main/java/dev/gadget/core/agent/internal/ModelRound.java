package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.ContextPruner;
import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ThinkingBlock;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.stream.StreamChunk;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The round trips of one run to the model: measures the context against the run's budget, prunes
 * and, when that is not enough, compacts the conversation, builds the request, streams the reply's
 * thinking and text to the listener, and waits for the completion, counting its tokens. Used on
 * the run's thread.
 */
public final class ModelRound {
  private static final Logger log = LoggerFactory.getLogger(ModelRound.class);
  /** A conversation this many times its budget before pruning is compacted too. */
  static final int RAW_BUDGET_FACTOR = 4;
  /**
   * How far under the budget a batch of pruning goes, as a share of the messages' budget: the
   * rounds after it add this much before the next batch changes earlier messages again.
   */
  static final double PRUNING_BATCH_SHARE = 0.2;

  private final LoopSettings settings;
  private final AgentRequest request;
  private final RunState state;
  private final RunEvents events;
  private final TurnJournal journal;
  private final ToolOffer offer;
  private ContextMeter meter;
  private CompactionStep compaction;
  private long nextCompaction;
  private long nextRawCompaction;
  /** What pruning cleared so far (since the last compaction), cleared the same again. */
  private ContextPruner.Cleared cleared = ContextPruner.Cleared.NONE;
  private int pruningBatches;

  /** The round trips of {@code request}'s run. */
  public ModelRound(LoopSettings settings, AgentRequest request, RunState state, RunEvents events,
      TurnJournal journal, ToolOffer offer) {
    this.settings = settings;
    this.request = request;
    this.state = state;
    this.events = events;
    this.journal = journal;
    this.offer = offer;
  }

  /**
   * The run's context budget in tokens: the model's window (asking the provider when the request
   * does not say it) less a reserve for the reply, or the limits' budget.
   */
  int budget() {
    if (meter == null) {
      meter = ContextMeter.of(settings, request);
      journal.budget(meter.budget());
    }
    return meter.budget();
  }

  /**
   * Measures the run's context budget (asking the provider for the window when the request does
   * not say it) and prepares compaction of the conversation.
   *
   * @param origins the turn each earlier message comes from (by identity)
   * @param currentPrompt the index of the turn's prompt
   */
  void open(Map<LlmMessage, String> origins, int currentPrompt) {
    budget();
    meter.toolTokens(offer.tokens());
    compaction = new CompactionStep(settings, request, state, events, origins, currentPrompt,
        r -> stream(r, false));
  }

  /**
   * Sends {@code messages}, pruned and, when they are still over the budget, compacted first (in
   * place: the rest of the turn goes on from the compacted conversation), and returns the model's
   * complete reply. A provider's refusal of the request as too long compacts once more and tries
   * once more.
   *
   * @throws LlmException if the model call failed
   * @throws Cancelled if the run was cancelled meanwhile
   */
  public LlmCompletion call(List<LlmMessage> messages) {
    if (compaction == null) {
      open(new java.util.IdentityHashMap<>(), lastUserMessage(messages));
    }
    meter.toolTokens(offer.tokens()); // tools loaded since the last round count from now on
    journal.tools(offer.loadedCount(), offer.deferredCount());
    List<LlmMessage> pruned = prepare(messages);
    try {
      return send(pruned);
    } catch (LlmException e) {
      if (!ContextRefusal.is(e) || state.isCancelled()) {
        throw e;
      }
      log.info("the provider refused the context as too long ({}); compacting it and trying "
          + "once more", e.getMessage());
      meter.refused();
      if (!compaction.compact(messages, meter.messageBudget(), meter)) {
        throw e;
      }
      cleared = ContextPruner.Cleared.NONE; // the messages were rebuilt
      return send(prune(messages));
    }
  }

  private List<LlmMessage> prepare(List<LlmMessage> messages) {
    List<LlmMessage> pruned = prune(messages);
    long rawLimit = Math.max(nextRawCompaction, (long) RAW_BUDGET_FACTOR * meter.budget());
    if (meter.measure(pruned) > Math.max(meter.budget(), nextCompaction)
        || meter.measure(messages) > rawLimit) {
      if (compaction.compact(messages, meter.messageBudget(), meter)) {
        cleared = ContextPruner.Cleared.NONE; // the messages were rebuilt
        pruned = prune(messages);
        // a compaction that could not bring the context down is not tried again at once:
        // only once the context has grown by a quarter of the budget (a whole one, unpruned)
        nextCompaction = meter.measure(pruned) + meter.budget() / 4;
        nextRawCompaction = (long) meter.measure(messages) + meter.budget();
      }
    }
    int size = meter.measure(pruned);
    if (size > meter.budget()) {
      String warning = "the context is over its budget after pruning and compaction "
          + "({} > {} tokens)";
      settings.budgetWarning().log(warning, warning, size, meter.budget());
    }
    return pruned;
  }

  /**
   * {@code messages} pruned in batches: what earlier rounds cleared is cleared the same way, so
   * the request begins with the last one's; only over the budget does a batch clear more, down
   * to {@link #PRUNING_BATCH_SHARE} under it.
   */
  private List<LlmMessage> prune(List<LlmMessage> messages) {
    int budget = meter.messageBudget();
    ContextPruner.Pruned p = settings.pruner().prune(messages, budget, cleared,
        (int) (budget * PRUNING_BATCH_SHARE));
    if (p.batch()) {
      pruningBatches++;
      log.debug("pruning batch {}: the context was over its budget of {} tokens; cleared down "
          + "to {}", pruningBatches, budget, ContextPruner.estimateTokens(p.messages()));
    }
    cleared = p.cleared();
    return p.messages();
  }

  private LlmCompletion send(List<LlmMessage> pruned) {
    meter.sent(pruned);
    journal.context(meter.lastSent());
    ModelParams params = request.params();
    if (params.contextWindow() == null && meter.window() > 0) {
      params = params.withContextWindow(meter.window()); // what the provider said, for Ollama
    }
    LlmRequest req = new LlmRequest(request.model(), pruned, offer.definitions(),
        params, request.think(), null, null, request.cacheKey(), offer.deferredDefinitions(),
        offer.references());
    LlmCompletion reply = stream(req, true);
    meter.observe(pruned, reply.usage());
    journal.context(meter.lastSent());
    return reply;
  }

  private static int lastUserMessage(List<LlmMessage> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i).role() == dev.gadget.core.model.Role.USER) {
        return i;
      }
    }
    return -1;
  }

  private LlmCompletion stream(LlmRequest req, boolean toListener) {
    CompletableFuture<LlmCompletion> done = new CompletableFuture<>();
    LlmCompletion[] partial = new LlmCompletion[1];
    LlmCall call = settings.llm().stream(req, new LlmListener() {
      @Override
      public void onThinking(String text) {
        if (toListener && !text.isEmpty()) {
          chunk(new StreamChunk.Thinking(text));
        }
      }

      @Override
      public void onSignedThinking(ThinkingBlock block) {
        if (toListener) { // kept with the thinking block, for the next turn
          chunk(new StreamChunk.Thinking("", SignedReasoningBlocks.stored(List.of(block))));
        }
      }

      @Override
      public void onText(String text) {
        if (toListener && !text.isEmpty()) {
          chunk(new StreamChunk.Response(text));
        }
      }

      @Override
      public void onComplete(LlmCompletion completion) {
        done.complete(completion);
      }

      @Override
      public void onError(LlmException error, LlmCompletion partialCompletion) {
        partial[0] = partialCompletion;
        done.completeExceptionally(error);
      }
    });
    if (state.callStarted(call)) {
      call.cancel();
    }
    journal.modelCalled();
    try {
      LlmCompletion completion = done.get();
      journal.count(completion.usage());
      return completion;
    } catch (InterruptedException e) {
      call.cancel();
      throw new Cancelled();
    } catch (ExecutionException e) {
      if (partial[0] != null) {
        journal.count(partial[0].usage());
      }
      if (state.isCancelled()) {
        throw new Cancelled();
      }
      if (e.getCause() instanceof LlmException) {
        throw (LlmException) e.getCause();
      }
      throw new LlmException(LlmException.Kind.PROTOCOL, String.valueOf(e.getCause()));
    } finally {
      state.callEnded();
    }
  }

  /** No chunk reaches the listener once the run is cancelled. */
  private void chunk(StreamChunk chunk) {
    if (!state.isCancelled()) {
      events.emit(l -> l.onChunk(chunk));
    }
  }
}
