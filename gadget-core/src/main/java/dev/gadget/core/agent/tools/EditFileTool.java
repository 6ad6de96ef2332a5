package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code edit_file}: replaces one exact, unique piece of a file's text. No match, or more than
 * one, is an error for the model and the file is left alone: never a partial or guessed edit. The
 * edit is refused if the agent has not read the file in this run or the file changed on disk
 * since it did. The new content replaces the file atomically. Stateless and thread-safe.
 */
public final class EditFileTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "edit_file";
  private static final JsonNode SCHEMA = Schemas.object()
      .required("path", "string", "the file, relative to the project directory")
      .required("old_text", "string",
          "the exact text to replace, as read_file showed it; it must occur exactly once")
      .required("new_text", "string", "the text to put in its place")
      .build();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Replace old_text with new_text in a file you have read. old_text must match exactly "
        + "(spaces, indentation, line breaks) and occur exactly once; otherwise nothing changes.";
  }

  @Override
  public JsonNode parameters() {
    return SCHEMA.deepCopy();
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
    FileTracker.checkWritable(context, NAME);
    Path file = context.resolve(Args.string(args, "path"));
    String oldText = Args.string(args, "old_text");
    String newText = Args.string(args, "new_text");
    String name = context.display(file);
    byte[] bytes = FileTracker.readBytes(context, file);
    FileTracker tracker = FileTracker.of(context);
    tracker.checkUnchanged(context, file, bytes, NAME);
    String text = FileTracker.text(context, file, bytes);
    if (oldText.isEmpty()) {
      throw new ToolException("old_text is empty; give the exact text to replace");
    }
    if (oldText.equals(newText)) {
      throw new ToolException("old_text and new_text are the same; nothing to change");
    }
    int at = text.indexOf(oldText);
    if (at < 0) {
      throw new ToolException("old_text was not found in " + name + "; nothing was changed. "
          + "Copy it exactly from read_file's output: spaces, indentation and line breaks count.");
    }
    int count = 0;
    for (int i = at; i >= 0; i = text.indexOf(oldText, i + 1)) {
      count++;
    }
    if (count > 1) {
      throw new ToolException("old_text occurs " + count + " times in " + name + "; nothing was "
          + "changed. Include more of the surrounding lines so that it occurs exactly once.");
    }
    String updated = text.substring(0, at) + newText + text.substring(at + oldText.length());
    byte[] out = updated.getBytes(StandardCharsets.UTF_8);
    FileTracker.write(file, out);
    tracker.saw(file, out);
    int firstLine = FileTracker.lineCount(text.substring(0, at) + "x");
    int oldLines = Math.max(1, FileTracker.lineCount(oldText));
    int newLines = FileTracker.lineCount(newText);
    return ToolResult.ok("Edited " + name + ": replaced " + plural(oldLines, "line") + " at line "
        + firstLine + " with " + plural(newLines, "line") + ".");
  }

  private static String plural(int n, String word) {
    return n + " " + word + (n == 1 ? "" : "s");
  }
}
