package dev.gadget.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.model.Role;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Trims a conversation before it is sent to the model (seed 002's {@code pruneSessionContext}).
 * Pure: it returns a new list and never changes its input. Immutable and thread-safe.
 *
 * <p><b>1. Superseded file outputs.</b> A tool call is <em>about a file</em> when its tool is a
 * read tool ({@code read_file}) or a write tool ({@code write_file}, {@code edit_file}) and its
 * {@code path} argument names the file. Once a newer full read, write or edit of the same file is
 * in the context, the older call's result becomes a one-line summary, and a write's or edit's
 * long text arguments are elided too. A read of a line range is superseded by any newer call
 * about the file, but does not itself supersede a full read.
 *
 * <p><b>2. Token budget.</b> If the context is still over budget, in this order and each oldest
 * first, until it fits: tool outputs are elided; {@code <thinking>…</thinking>} merged into
 * earlier assistant messages is removed, and so is the unsigned {@code thinking} of assistant
 * messages of earlier turns (before the last user message); long tool-call arguments are elided. Tokens are
 * estimated, not counted: {@link #estimateTokens(LlmMessage) three characters per token}.
 *
 * <p><b>In batches.</b> {@link #prune(List, int, Cleared, int)} prunes as the agent loop does,
 * so that a provider's prompt cache holds from round to round: nothing while the context fits,
 * then a batch (1 and 2, with a margin under the budget), then exactly the same again until the
 * next batch.
 *
 * <p><b>Never.</b> No message is ever removed, so every tool call keeps its result and every
 * result its call; system and user messages are never changed; the {@code thinking} of the
 * current turn's assistant messages (sent back to servers that require it) is kept. If the context cannot be
 * brought under budget this way it is returned over budget.
 */
public final class ContextPruner {
  /** The tools whose {@code path} argument names a file they read. */
  public static final Set<String> DEFAULT_READ_TOOLS = Set.of("read_file");
  /** The tools whose {@code path} argument names a file they write. */
  public static final Set<String> DEFAULT_WRITE_TOOLS = Set.of("write_file", "edit_file");

  /** The newest tool results a batch leaves alone beyond what the budget needs. */
  public static final int KEPT_RECENT_RESULTS = 3;
  private static final int MIN_ELIDED_CHARS = 256;
  private static final int MIN_ELIDED_ARGUMENT_CHARS = 120;
  private static final Pattern THINKING =
      Pattern.compile("<thinking>.*?</thinking>\\n?", Pattern.DOTALL);

  private final int tokenBudget;
  private final Set<String> readTools;
  private final Set<String> writeTools;

  /** A pruner with the default file tools. */
  public ContextPruner(int tokenBudget) {
    this(tokenBudget, DEFAULT_READ_TOOLS, DEFAULT_WRITE_TOOLS);
  }

  /**
   * A pruner.
   *
   * @param tokenBudget the estimated tokens the context may take
   * @param readTools names of tools whose {@code path} argument is a file they read
   * @param writeTools names of tools whose {@code path} argument is a file they write
   */
  public ContextPruner(int tokenBudget, Set<String> readTools, Set<String> writeTools) {
    if (tokenBudget < 1) {
      throw new IllegalArgumentException("tokenBudget < 1: " + tokenBudget);
    }
    this.tokenBudget = tokenBudget;
    this.readTools = Set.copyOf(readTools);
    this.writeTools = Set.copyOf(writeTools);
  }

  /** The token budget. */
  public int tokenBudget() {
    return tokenBudget;
  }

  /**
   * The estimated tokens of a message: its characters (content, thinking, tool names and
   * arguments as JSON) divided by three, rounded up, plus four for the message's framing. Common
   * tokenizers average about four characters of English or code per token; three errs on the
   * safe side (dense code, JSON, other languages). It needs no tokenizer; the agent loop
   * corrects it upwards with the token counts the provider reports.
   */
  public static int estimateTokens(LlmMessage message) {
    long chars = message.content().length();
    if (message.thinking() != null) {
      chars += message.thinking().length();
    }
    for (LlmToolCall call : message.toolCalls()) {
      chars += call.name().length() + call.arguments().toString().length();
    }
    return estimateTokens(chars);
  }

  /** The estimated tokens of {@code chars} characters of one message: see above. */
  public static int estimateTokens(long chars) {
    return (int) Math.min(Integer.MAX_VALUE, (chars + 2) / 3 + 4);
  }

  /** The estimated tokens of a conversation: the sum of {@link #estimateTokens(LlmMessage)}. */
  public static int estimateTokens(List<LlmMessage> messages) {
    long sum = 0;
    for (LlmMessage m : messages) {
      sum += estimateTokens(m);
    }
    return (int) Math.min(Integer.MAX_VALUE, sum);
  }

  /**
   * The pruned conversation.
   *
   * @param messages the conversation, oldest first
   * @return a new list of the same length, with the same roles, tool calls and call ids
   */
  public List<LlmMessage> prune(List<LlmMessage> messages) {
    return prune(messages, tokenBudget);
  }

  /**
   * The conversation pruned to another budget, such as the part of a model's context window
   * that the messages may take.
   *
   * @param messages the conversation, oldest first
   * @param tokenBudget the estimated tokens the messages may take
   * @return a new list of the same length, with the same roles, tool calls and call ids
   */
  public List<LlmMessage> prune(List<LlmMessage> messages, int tokenBudget) {
    return prune(messages, tokenBudget, Cleared.NONE, 0, true).messages();
  }

  /**
   * What earlier batches of a run cleared, so that the next round clears the same again and the
   * prompt prefix stays as it was: the calls whose superseded results were summarised, and how
   * far (a message index) each budget stage reached. Valid while the conversation only grows
   * at its end; after a compaction start again from {@link #NONE}.
   *
   * @param superseded the ids of the calls whose results (and, for writes, arguments) were
   *     summarised as superseded
   * @param outputs tool outputs before this index were elided where long
   * @param thinking merged and earlier turns' reasoning before this index was removed
   * @param arguments long tool-call arguments before this index were elided
   */
  public record Cleared(Set<String> superseded, int outputs, int thinking, int arguments) {
    /** Nothing cleared yet. */
    public static final Cleared NONE = new Cleared(Set.of(), 0, 0, 0);

    public Cleared {
      superseded = Set.copyOf(superseded);
    }
  }

  /**
   * A pruned conversation and what is cleared in it.
   *
   * @param messages the conversation as it is sent
   * @param cleared what it cleared, for the next round
   * @param batch whether this call cleared more than the earlier ones had
   */
  public record Pruned(List<LlmMessage> messages, Cleared cleared, boolean batch) {}

  /**
   * The conversation pruned in batches, as Anthropic's context editing clears tool results:
   * what {@code cleared} says earlier rounds cleared is cleared again, the same way; nothing more
   * while the result fits {@code tokenBudget}, so each round's request begins with the last
   * one's and the provider's prompt cache holds. Over the budget, one batch clears all the
   * superseded file outputs and then, oldest first, as above, until the estimate fits and then
   * until it is at least {@code minClear} tokens under the budget (leaving the
   * {@value #KEPT_RECENT_RESULTS} newest tool results alone for that part), so that the next
   * batch is rounds away.
   *
   * @param messages the conversation, oldest first, the last round's as a prefix
   * @param tokenBudget the estimated tokens the messages may take
   * @param cleared what the earlier rounds of the run cleared ({@link Cleared#NONE} at first)
   * @param minClear how far under the budget a batch goes, in estimated tokens
   * @return the pruned conversation, of the same length, and what it cleared
   */
  public Pruned prune(List<LlmMessage> messages, int tokenBudget, Cleared cleared,
      int minClear) {
    return prune(messages, tokenBudget, Objects.requireNonNull(cleared, "cleared"),
        Math.max(0, minClear), false);
  }

  private Pruned prune(List<LlmMessage> messages, int tokenBudget, Cleared cleared,
      int minClear, boolean always) {
    Objects.requireNonNull(messages, "messages");
    Map<String, Integer> resultIndex = new HashMap<>();
    for (int i = 0; i < messages.size(); i++) {
      LlmMessage m = messages.get(i);
      if (m.role() == Role.TOOL) {
        resultIndex.put(m.toolCallId(), i);
      }
    }
    int[] cut = {Math.min(cleared.outputs(), messages.size()),
        Math.min(cleared.thinking(), messages.size()),
        Math.min(cleared.arguments(), messages.size())};
    if (!always) {
      List<LlmMessage> again = new ArrayList<>(messages);
      clearAgain(again, resultIndex, new HashSet<>(), cleared.superseded(), cut);
      if (estimateTokens(again) <= tokenBudget) {
        return new Pruned(List.copyOf(again), cleared, false);
      }
    }
    // a batch: every superseded output, then, in the same order as above, what the budget needs
    List<LlmMessage> out = new ArrayList<>(messages);
    Set<Integer> elided = new HashSet<>();
    Set<String> superseded = clearAgain(out, resultIndex, elided, null, cut);
    int prompt = lastUserMessage(out);
    int total = estimateTokens(out);
    long target = (long) tokenBudget - minClear;
    int keepFrom = recentResults(out);
    for (int stage = 0; stage < cut.length; stage++) {
      int i = cut[stage];
      // what the budget needs, oldest first; then, short of the newest results, the batch's more
      for (; i < out.size() && (total > tokenBudget || (total > target && i < keepFrom)); i++) {
        total += clear(stage, out, i, elided, prompt);
      }
      cut[stage] = i;
    }
    return new Pruned(List.copyOf(out), new Cleared(superseded, cut[0], cut[1], cut[2]),
        !always);
  }

  /**
   * The index of the oldest of the {@value #KEPT_RECENT_RESULTS} newest tool results (of the
   * first result when there are fewer): a batch clears nothing from there on beyond what the
   * budget needs, as Anthropic's context editing keeps the latest tool uses.
   */
  private static int recentResults(List<LlmMessage> out) {
    int seen = 0;
    int from = out.size();
    for (int i = out.size() - 1; i >= 0 && seen < KEPT_RECENT_RESULTS; i--) {
      if (out.get(i).role() == Role.TOOL) {
        seen++;
        from = i;
      }
    }
    return from;
  }

  /**
   * Summarises the superseded outputs ({@code only} those, or all when {@code null}), then clears
   * each budget stage up to its cut; returns the ids of all superseded calls.
   */
  private Set<String> clearAgain(List<LlmMessage> out, Map<String, Integer> resultIndex,
      Set<Integer> elided, Set<String> only, int[] cut) {
    Set<String> superseded = pruneSuperseded(out, resultIndex, elided, only);
    int prompt = lastUserMessage(out);
    for (int stage = 0; stage < cut.length; stage++) {
      for (int i = 0; i < cut[stage]; i++) {
        clear(stage, out, i, elided, prompt);
      }
    }
    return superseded;
  }

  /** Clears message {@code i} as budget stage {@code stage} does; the change in tokens. */
  private static int clear(int stage, List<LlmMessage> out, int i, Set<Integer> elided,
      int prompt) {
    LlmMessage m = out.get(i);
    switch (stage) {
      case 0:
        if (m.role() == Role.TOOL && !elided.contains(i)
            && m.content().length() > MIN_ELIDED_CHARS) {
          elided.add(i);
          return replace(out, i, m.withContent("[" + toolName(m) + " output elided to fit the "
              + "context budget (" + m.content().length() + " chars)]"));
        }
        return 0;
      case 1:
        int delta = 0;
        if (m.role() == Role.ASSISTANT && m.content().contains("<thinking>")) {
          delta += replace(out, i, m.withContent(THINKING.matcher(m.content()).replaceAll("")));
          m = out.get(i);
        }
        if (i < prompt && m.role() == Role.ASSISTANT && m.thinking() != null
            && m.thinkingBlocks().isEmpty()) {
          delta += replace(out, i, new LlmMessage(m.role(), m.content(), null, m.toolCalls(),
              m.toolCallId(), m.toolName()));
        }
        return delta;
      default:
        if (m.role() == Role.ASSISTANT && !m.toolCalls().isEmpty()) {
          List<LlmToolCall> calls = new ArrayList<>();
          for (LlmToolCall call : m.toolCalls()) {
            calls.add(elideArguments(call, "elided to fit the context budget"));
          }
          return replace(out, i, m.withToolCalls(calls));
        }
        return 0;
    }
  }

  /**
   * Summarises the results of calls about a file that a newer one supersedes: all of them, or
   * only those whose ids are in {@code only}. Returns the ids of all superseded calls.
   */
  private Set<String> pruneSuperseded(List<LlmMessage> out, Map<String, Integer> resultIndex,
      Set<Integer> elided, Set<String> only) {
    Set<String> found = new HashSet<>();
    List<FileCall> calls = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) {
      LlmMessage m = out.get(i);
      if (m.role() != Role.ASSISTANT) {
        continue;
      }
      for (int j = 0; j < m.toolCalls().size(); j++) {
        FileCall fc = fileCall(i, j, m.toolCalls().get(j));
        if (fc != null) {
          calls.add(fc);
        }
      }
    }
    Map<Integer, List<LlmToolCall>> rewrittenCalls = new HashMap<>();
    for (int a = 0; a < calls.size(); a++) {
      FileCall older = calls.get(a);
      FileCall newer = null;
      for (int b = a + 1; b < calls.size() && newer == null; b++) {
        FileCall candidate = calls.get(b);
        if (candidate.file.equals(older.file)
            && (candidate.kind != Kind.PARTIAL_READ || older.kind == Kind.PARTIAL_READ)) {
          newer = candidate;
        }
      }
      if (newer == null) {
        continue;
      }
      found.add(older.call.id());
      if (only != null && !only.contains(older.call.id())) {
        continue;
      }
      Integer r = resultIndex.get(older.call.id());
      if (r != null && !elided.contains(r)) {
        LlmMessage result = out.get(r);
        String summary = "[" + older.call.name() + " output for " + older.file
            + " elided: a later " + (newer.kind == Kind.WRITE ? "change" : "read")
            + " of this file is further down (" + result.content().length() + " chars)]";
        if (summary.length() < result.content().length()) {
          out.set(r, result.withContent(summary));
          elided.add(r);
        }
      }
      if (older.kind == Kind.WRITE) {
        List<LlmToolCall> current = rewrittenCalls.computeIfAbsent(
            older.message, i -> new ArrayList<>(out.get(i).toolCalls()));
        current.set(older.index, elideArguments(older.call,
            "superseded by a later read or change of " + older.file));
      }
    }
    rewrittenCalls.forEach((i, list) -> out.set(i, out.get(i).withToolCalls(list)));
    return found;
  }

  private FileCall fileCall(int message, int index, LlmToolCall call) {
    boolean read = readTools.contains(call.name());
    if (!read && !writeTools.contains(call.name())) {
      return null;
    }
    JsonNode path = call.arguments().get("path");
    if (path == null || !path.isTextual()) {
      return null;
    }
    String file = normalize(path.asText());
    Kind kind = !read ? Kind.WRITE
        : call.arguments().hasNonNull("start_line") || call.arguments().hasNonNull("end_line")
            ? Kind.PARTIAL_READ : Kind.FULL_READ;
    return new FileCall(message, index, call, file, kind);
  }

  /** {@code ./a//b} and {@code a/b} name the same file. */
  static String normalize(String path) {
    String p = path.replace('\\', '/').replaceAll("/+", "/");
    while (p.startsWith("./")) {
      p = p.substring(2);
    }
    p = p.replace("/./", "/");
    if (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }

  private static LlmToolCall elideArguments(LlmToolCall call, String why) {
    if (!call.arguments().isObject()) {
      return call;
    }
    ObjectNode args = ((ObjectNode) call.arguments()).deepCopy();
    boolean changed = false;
    for (Map.Entry<String, JsonNode> field : ((ObjectNode) call.arguments()).properties()) {
      String text = field.getValue().isTextual() ? field.getValue().asText() : null;
      if (!field.getKey().equals("path") && text != null
          && text.length() > MIN_ELIDED_ARGUMENT_CHARS) {
        args.put(field.getKey(), "[" + text.length() + " chars " + why + "]");
        changed = true;
      }
    }
    return changed ? new LlmToolCall(call.id(), call.name(), args) : call;
  }

  private static int replace(List<LlmMessage> out, int i, LlmMessage replacement) {
    int before = estimateTokens(out.get(i));
    out.set(i, replacement);
    return estimateTokens(replacement) - before;
  }

  private static int lastUserMessage(List<LlmMessage> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i).role() == Role.USER) {
        return i;
      }
    }
    return -1;
  }

  private static String toolName(LlmMessage m) {
    return m.toolName() == null ? "tool" : m.toolName();
  }

  private enum Kind { FULL_READ, PARTIAL_READ, WRITE }

  private record FileCall(int message, int index, LlmToolCall call, String file, Kind kind) {}
}
