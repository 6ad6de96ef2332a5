package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code read_file}: a text file of the project, whole or a range of lines. Records what it read,
 * so that {@link EditFileTool} can tell whether the file changed since. Stateless and thread-safe.
 */
public final class ReadFileTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "read_file";
  private static final JsonNode SCHEMA = Schemas.object()
      .required("path", "string", "the file, relative to the project directory")
      .optional("start_line", "integer", "first line to read, from 1 (default: the first)")
      .optional("end_line", "integer", "last line to read, inclusive (default: the last)")
      .build();

  private final int maxChars;

  /** A tool returning at most 100,000 characters per call. */
  public ReadFileTool() {
    this(100_000);
  }

  /** A tool returning at most {@code maxChars} characters per call (the rest is cut, and said). */
  public ReadFileTool(int maxChars) {
    if (maxChars < 1) {
      throw new IllegalArgumentException("maxChars < 1");
    }
    this.maxChars = maxChars;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Read a UTF-8 text file, whole or lines start_line to end_line (from 1, inclusive). "
        + "A range starts with a header line saying which lines of how many.";
  }

  @Override
  public JsonNode parameters() {
    return SCHEMA.deepCopy();
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
    Path file = context.resolve(Args.string(args, "path"));
    Integer start = Args.integer(args, "start_line");
    Integer end = Args.integer(args, "end_line");
    String name = context.display(file);
    byte[] bytes = FileTracker.readBytes(context, file);
    String text = FileTracker.text(context, file, bytes);
    FileTracker.of(context).saw(file, bytes);
    if (start == null && end == null) {
      if (text.isEmpty()) {
        return ToolResult.ok("(" + name + " is empty)");
      }
      return ToolResult.ok(cap(text, name, FileTracker.lineCount(text)));
    }
    List<String> lines = List.of(text.split("(?<=\n)"));
    int total = text.isEmpty() ? 0 : lines.size();
    int from = start == null ? 1 : start;
    int to = end == null ? total : Math.min(end, total);
    if (from < 1) {
      throw new ToolException("start_line must be 1 or more");
    }
    if (from > total) {
      throw new ToolException("start_line " + from + " is past the end: " + name + " has "
          + total + " lines");
    }
    if (to < from) {
      throw new ToolException("end_line " + to + " is before start_line " + from);
    }
    StringBuilder sb = new StringBuilder();
    sb.append('[').append(name).append(": lines ").append(from).append('-').append(to)
        .append(" of ").append(total).append("]\n");
    for (int i = from - 1; i < to; i++) {
      sb.append(lines.get(i));
    }
    return ToolResult.ok(cap(sb.toString(), name, total));
  }

  private String cap(String text, String name, int lines) {
    if (text.length() <= maxChars) {
      return text;
    }
    return text.substring(0, maxChars) + "\n[… cut at " + maxChars + " of " + text.length()
        + " chars: " + name + " has " + lines + " lines; read the rest with start_line and "
        + "end_line]";
  }
}
