package dev.gadget.core.agent;

import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.Role;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Compacts a conversation that pruning could not bring under its context budget (SPI): chooses
 * how many of the oldest messages to replace and writes what replaces them. The default,
 * {@link SummarizingCompactor}, has the model summarize them.
 *
 * <p>The loop does the rest, the same for every compactor: the system prompt and the session's
 * first prompt stay first; the summary follows as a user message starting
 * {@link dev.gadget.core.model.ContextCompaction#SUMMARY_HEADING}; the turn's own prompt follows
 * it again, verbatim, when it was among the replaced messages; then every message from
 * {@link Compacted#keptFrom()} on, verbatim. A {@code keptFrom} that would part a tool result from
 * its call (it must be a user prompt, or an assistant message right after tool results or after
 * the turn's prompt) is refused with a warning, and the conversation goes on uncompacted.
 *
 * <p><b>Threading.</b> Called on the run's thread, at most twice per model round trip (once when
 * over budget, once more when the provider refused the request as too long). It may call the
 * model through {@link Request#complete}, which the run's cancel stops. It must not throw except
 * the {@link LlmException} of {@link Request#complete}; a compactor that cannot help returns
 * empty.
 */
@FunctionalInterface
public interface Compactor {
  /** Never compacts: a conversation over budget goes as pruning left it. */
  Compactor NONE = request -> Optional.empty();

  /**
   * What replaces the oldest messages, or empty to leave the conversation as it is.
   *
   * @param request the conversation and its budget
   * @throws LlmException when the model call of {@link Request#complete} failed
   */
  Optional<Compacted> compact(Request request);

  /**
   * Whether the conversation may be cut before {@code index} without parting a tool result from
   * its call: the message there is a user message, or an assistant message right after tool
   * results or right after the turn's prompt.
   *
   * @param messages the conversation
   * @param index where the kept part would start
   * @param currentPrompt the index of the turn's prompt
   */
  static boolean isRoundStart(List<LlmMessage> messages, int index, int currentPrompt) {
    if (index <= 0 || index >= messages.size()) {
      return false;
    }
    Role role = messages.get(index).role();
    Role before = messages.get(index - 1).role();
    return role == Role.USER
        || role == Role.ASSISTANT && (before == Role.TOOL || index - 1 == currentPrompt);
  }

  /**
   * A compactor's answer.
   *
   * @param keptFrom the index, in {@link Request#messages()}, of the first message kept verbatim;
   *     the messages after the first prompt and before it are replaced
   * @param summary what replaces them
   */
  record Compacted(int keptFrom, String summary) {
    public Compacted {
      Objects.requireNonNull(summary, "summary");
    }
  }

  /**
   * Calls the model once, without tools, and waits for the whole reply.
   */
  @FunctionalInterface
  interface Model {
    /**
     * The complete reply to {@code request}; nothing of it streams to the turn's listener.
     *
     * @throws LlmException when the call failed or the run was cancelled
     */
    LlmCompletion complete(LlmRequest request);
  }

  /**
   * A conversation to compact.
   *
   * @param messages the whole conversation, oldest first (system prompt first)
   * @param firstPrompt the index of the session's first user prompt, kept verbatim
   * @param currentPrompt the index of this turn's prompt (repeated verbatim after a summary
   *     that replaces it)
   * @param tokenBudget the estimated tokens the messages may take ({@link ContextPruner})
   * @param pruner this loop's pruner, to see the messages as they would be sent
   * @param modelId the model of the turn
   * @param params the turn's model parameters
   * @param model calls the model
   */
  record Request(List<LlmMessage> messages, int firstPrompt, int currentPrompt, int tokenBudget,
      ContextPruner pruner, String modelId, ModelParams params, Model model) {
    public Request {
      messages = List.copyOf(messages);
      Objects.requireNonNull(pruner, "pruner");
      Objects.requireNonNull(modelId, "modelId");
      Objects.requireNonNull(model, "model");
      params = params == null ? ModelParams.DEFAULTS : params;
    }

    /** Calls the model once, without tools (see {@link Model#complete}). */
    public LlmCompletion complete(LlmRequest request) {
      return model.complete(request);
    }
  }
}
