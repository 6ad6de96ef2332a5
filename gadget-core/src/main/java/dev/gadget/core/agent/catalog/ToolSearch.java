package dev.gadget.core.agent.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@value #NAME} tool's words: what it answers the model, and how that answer is read back
 * (the server tells seed 004's {@code tool_found}, {@code tool_mismatch} and
 * {@code no_tool_found} from a stored {@value #NAME} call's result, as it tells a plan from
 * {@code update_plan}'s arguments). Pure.
 *
 * <p>An answer's first line says what happened; each match is a line
 * {@code - NAME (similarity 0.87): one-line description}, followed by {@code [loaded]}-style notes
 * in brackets where a tool could not be loaded.
 */
public final class ToolSearch {
  /** The tool's name. */
  public static final String NAME = "search_tools";
  /**
   * The tool through which the model calls the tools a search loaded when their definitions
   * come in the search's result ({@link dev.gadget.core.llm.ToolLoading#IN_RESULT}).
   */
  public static final String CALL_TOOL = "call_tool";
  private static final Pattern MATCH =
      Pattern.compile("^- (\\S+) \\(similarity ([0-9]+(?:\\.[0-9]+)?)\\)", Pattern.MULTILINE);
  private static final String FOUND = "Loaded ";
  private static final String MISMATCH = "No tool is a close match for ";
  private static final String NONE = "No tool matches ";

  /** What a search came to. */
  public enum Outcome {
    /** The best match is at or over the threshold. */
    FOUND,
    /** There are matches, the best under the threshold. */
    MISMATCH,
    /** Nothing shares a word with the query. */
    NONE
  }

  /**
   * A search as its answer tells it.
   *
   * @param outcome what it came to
   * @param headline its first line, in words (why a mismatch is one), without the colon
   * @param matches the tools it listed, best first
   */
  public record Result(Outcome outcome, String headline, List<ToolMatch> matches) {
    public Result {
      matches = List.copyOf(matches);
    }

    /** Why a mismatch is one ({@code the best covers 20% of its words, under 30%}), else "". */
    public String reason() {
      int at = headline.lastIndexOf("(the best covers ");
      int end = at < 0 ? -1 : headline.indexOf(')', at);
      return end < 0 ? "" : headline.substring(at + 1, end);
    }
  }

  private ToolSearch() {}

  /**
   * The answer to a search for {@code query} that found {@code matches} (best first) among
   * {@code searched} tools, the best under {@code threshold} being a mismatch; {@code notes}
   * holds, per match, a note such as {@code "already loaded"} or {@code null}.
   */
  public static String answer(String query, List<ToolMatch> matches, List<String> notes,
      int searched, double threshold) {
    if (matches.isEmpty()) {
      return NONE + quote(query) + ": none of the " + searched + " tools that can be loaded "
          + "has these words in its name, description or parameters. Try other words (what the "
          + "tool would do, or the service it works with) or a tool's name.";
    }
    StringBuilder sb = new StringBuilder();
    double best = matches.get(0).similarity();
    if (best < threshold) {
      sb.append(MISMATCH).append(quote(query)).append(" (the best covers ")
          .append(percent(best)).append(" of its words, under ").append(percent(threshold))
          .append("); the closest are loaded anyway, check that one fits before you call it, "
              + "or search with other words:\n");
    } else {
      sb.append(FOUND).append(matches.size()).append(matches.size() == 1 ? " tool" : " tools")
          .append(" for ").append(quote(query))
          .append("; call them by name with the arguments their definitions ask for:\n");
    }
    for (int i = 0; i < matches.size(); i++) {
      ToolMatch m = matches.get(i);
      sb.append("- ").append(m.name()).append(" (similarity ")
          .append(String.format(Locale.ROOT, "%.2f", m.similarity())).append("): ")
          .append(m.summary());
      if (notes.get(i) != null) {
        sb.append(" [").append(notes.get(i)).append(']');
      }
      sb.append('\n');
    }
    return sb.toString().stripTrailing();
  }

  /** Reads an answer {@link #answer} wrote; {@code null} for any other text. */
  public static Result read(String answer) {
    if (answer == null) {
      return null;
    }
    Outcome outcome = answer.startsWith(FOUND) ? Outcome.FOUND
        : answer.startsWith(MISMATCH) ? Outcome.MISMATCH
        : answer.startsWith(NONE) ? Outcome.NONE : null;
    if (outcome == null) {
      return null;
    }
    List<ToolMatch> matches = new ArrayList<>();
    Matcher m = MATCH.matcher(answer);
    while (m.find()) {
      int end = answer.indexOf('\n', m.end());
      String summary = answer.substring(Math.min(m.end() + 2, answer.length()),
          end < 0 ? answer.length() : end);
      double similarity = Double.parseDouble(m.group(2));
      matches.add(new ToolMatch(m.group(1), summary, similarity, similarity));
    }
    int eol = answer.indexOf('\n');
    String headline = (eol < 0 ? answer : answer.substring(0, eol)).strip();
    if (headline.endsWith(":")) {
      headline = headline.substring(0, headline.length() - 1);
    }
    return new Result(outcome, headline, matches);
  }

  private static String quote(String query) {
    String q = query.strip().replaceAll("\\s+", " ");
    return "\"" + (q.length() > 200 ? q.substring(0, 199) + "…" : q) + "\"";
  }

  private static String percent(double share) {
    return Math.round(share * 100) + "%";
  }
}
