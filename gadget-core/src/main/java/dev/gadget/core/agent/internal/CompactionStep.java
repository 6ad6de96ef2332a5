package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.Compactor;
import dev.gadget.core.agent.ContextPruner;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.Role;
import dev.gadget.core.stream.StreamChunk;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts one run's conversation in place with the loop's {@link Compactor}: the system prompt
 * and the session's first prompt, the summary, the turn's prompt again when it was summarized,
 * then the kept messages; and tells the listener with a compaction chunk. Used on the run's
 * thread.
 */
final class CompactionStep {
  private static final Logger log = LoggerFactory.getLogger(CompactionStep.class);

  private final LoopSettings settings;
  private final AgentRequest request;
  private final RunState state;
  private final RunEvents events;
  private final Map<LlmMessage, String> origins;
  private final Compactor.Model model;
  private int currentPrompt;

  /**
   * @param origins the turn each earlier message comes from (by identity); a message not in it
   *     is this turn's
   * @param currentPrompt the index of the turn's prompt in the conversation
   */
  CompactionStep(LoopSettings settings, AgentRequest request, RunState state, RunEvents events,
      Map<LlmMessage, String> origins, int currentPrompt, Compactor.Model model) {
    this.settings = settings;
    this.request = request;
    this.state = state;
    this.events = events;
    this.origins = origins;
    this.currentPrompt = currentPrompt;
    this.model = model;
  }

  /**
   * Compacts {@code messages} in place when the compactor can.
   *
   * @param budget the estimated tokens the messages may take
   * @return whether they were compacted
   * @throws Cancelled if the run was cancelled meanwhile
   */
  boolean compact(List<LlmMessage> messages, int budget, ContextMeter meter) {
    int first = firstPrompt(messages);
    if (first < 0) {
      return false;
    }
    ContextPruner pruner = settings.pruner();
    int before = meter.measure(pruner.prune(messages, budget));
    Optional<Compactor.Compacted> answer;
    try {
      answer = settings.compactor().compact(new Compactor.Request(messages, first, currentPrompt,
          budget, pruner, request.model(), request.params(), model));
    } catch (Cancelled e) {
      throw e;
    } catch (RuntimeException e) {
      state.checkCancelled();
      log.warn("the context could not be compacted: {}", e.getMessage());
      return false;
    }
    if (answer.isEmpty()) {
      return false;
    }
    int kept = answer.get().keptFrom();
    if (kept <= first + 1 || !Compactor.isRoundStart(messages, kept, currentPrompt)) {
      log.warn("the compactor's cut at message {} would part a tool result from its call or "
          + "keep nothing out; the context goes on uncompacted", kept);
      return false;
    }
    List<LlmMessage> out = new ArrayList<>(messages.subList(0, first + 1));
    String summary = answer.get().summary();
    out.add(LlmMessage.user(ContextCompaction.SUMMARY_HEADING + summary));
    boolean repeated = currentPrompt > first && currentPrompt < kept;
    int prompt = currentPrompt;
    if (repeated) {
      out.add(messages.get(currentPrompt));
      prompt = out.size() - 1;
    } else if (currentPrompt >= kept) {
      prompt = currentPrompt - kept + out.size();
    }
    out.addAll(messages.subList(kept, messages.size()));

    LlmMessage at = messages.get(kept);
    LlmMessage previous = messages.get(kept - 1);
    String keptTurn = at.role() == Role.USER ? origins.get(at) : origins.get(previous);
    String afterCall = at.role() != Role.USER && previous.role() == Role.TOOL
        ? previous.toolCallId() : null;
    int after = meter.measure(pruner.prune(out, budget));
    ContextCompaction compaction = new ContextCompaction(summary,
        describe(messages.subList(first + 1, kept)), kept - first - 1, before, after, keptTurn,
        afterCall, repeated);
    messages.clear();
    messages.addAll(out);
    currentPrompt = prompt;
    log.debug("compacted the context: {} messages summarized, {} -> {} tokens", kept - first - 1,
        before, after);
    if (!state.isCancelled()) {
      events.emit(l -> l.onChunk(new StreamChunk.CompactionChunk(compaction)));
    }
    return true;
  }

  private String describe(List<LlmMessage> summarized) {
    Set<String> turns = new HashSet<>();
    int rounds = 0;
    for (LlmMessage m : summarized) {
      String turn = origins.get(m);
      if (turn != null) {
        turns.add(turn);
      } else if (m.role() == Role.ASSISTANT) {
        rounds++;
      }
    }
    return summarized.size() + " messages: " + (turns.isEmpty() ? "" : "from " + turns.size()
        + " earlier turn" + (turns.size() == 1 ? "" : "s") + (rounds > 0 ? " and " : ""))
        + (rounds > 0 || turns.isEmpty() ? rounds + " round" + (rounds == 1 ? "" : "s")
        + " of this turn" : "");
  }

  private static int firstPrompt(List<LlmMessage> messages) {
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).role() == Role.USER) {
        return i;
      }
    }
    return -1;
  }
}
