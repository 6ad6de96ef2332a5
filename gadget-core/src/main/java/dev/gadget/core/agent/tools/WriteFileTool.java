package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code write_file}: creates a file (and its directories) or replaces one. An existing file is
 * replaced only if the agent read it in this run and it has not changed on disk since: the user
 * may be editing too. Stateless and thread-safe.
 */
public final class WriteFileTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "write_file";
  private static final JsonNode SCHEMA = Schemas.object()
      .required("path", "string", "the file, relative to the project directory")
      .required("content", "string", "the whole new content of the file")
      .build();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Create a file (with its directories) or replace all of an existing one, which you "
        + "must have read first. To change part of a file, use edit_file.";
  }

  @Override
  public JsonNode parameters() {
    return SCHEMA.deepCopy();
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
    FileTracker.checkWritable(context, NAME);
    Path file = context.resolve(Args.string(args, "path"));
    String content = Args.string(args, "content");
    String name = context.display(file);
    if (file.equals(context.projectDir()) || Files.isDirectory(file)) {
      throw new ToolException(name + " is a directory");
    }
    FileTracker tracker = FileTracker.of(context);
    boolean exists = Files.exists(file);
    if (exists) {
      tracker.checkUnchanged(context, file, Files.readAllBytes(file), NAME);
    }
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    FileTracker.write(file, bytes);
    tracker.saw(file, bytes);
    return ToolResult.ok((exists ? "Replaced " : "Created ") + name + " ("
        + FileTracker.lineCount(content) + " lines, " + bytes.length + " bytes)");
  }
}
