package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.ContextPruner;
import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.stream.StreamChunk;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The round trips of one run to the model: prunes the conversation, builds the request, streams
 * the reply's thinking and text to the listener, and waits for the completion, counting its tokens.
 * Used on the run's thread.
 */
public final class ModelRound {
  private final LoopSettings settings;
  private final AgentRequest request;
  private final RunState state;
  private final RunEvents events;
  private final TurnJournal journal;

  /** The round trips of {@code request}'s run. */
  public ModelRound(LoopSettings settings, AgentRequest request, RunState state, RunEvents events,
      TurnJournal journal) {
    this.settings = settings;
    this.request = request;
    this.state = state;
    this.events = events;
    this.journal = journal;
  }

  /**
   * Sends the pruned {@code messages} and returns the model's complete reply.
   *
   * @throws LlmException if the model call failed
   * @throws Cancelled if the run was cancelled meanwhile
   */
  public LlmCompletion call(List<LlmMessage> messages) {
    ContextPruner pruner = settings.pruner();
    List<LlmMessage> pruned = pruner.prune(messages);
    int estimate = ContextPruner.estimateTokens(pruned);
    if (estimate > pruner.tokenBudget()) {
      String warning = "the context is over its budget after pruning ({} > {} tokens)";
      settings.budgetWarning().log(warning, warning, estimate, pruner.tokenBudget());
    }
    LlmRequest req = new LlmRequest(request.model(), pruned, settings.tools().definitions(),
        request.params(), request.think());
    return stream(req);
  }

  private LlmCompletion stream(LlmRequest req) {
    CompletableFuture<LlmCompletion> done = new CompletableFuture<>();
    LlmCompletion[] partial = new LlmCompletion[1];
    LlmCall call = settings.llm().stream(req, new LlmListener() {
      @Override
      public void onThinking(String text) {
        if (!text.isEmpty()) {
          chunk(new StreamChunk.Thinking(text));
        }
      }

      @Override
      public void onText(String text) {
        if (!text.isEmpty()) {
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
