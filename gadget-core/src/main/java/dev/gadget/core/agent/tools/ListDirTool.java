package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code list_dir}: the entries of a directory, sorted by name; directories end with {@code /},
 * symbolic links with {@code @}. Stateless and thread-safe.
 */
public final class ListDirTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "list_dir";
  private static final int MAX_ENTRIES = 1000;
  private static final JsonNode SCHEMA = Schemas.object()
      .optional("path", "string", "the directory, relative to the project directory "
          + "(default: the project directory)")
      .build();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "List a directory: one entry per line, directories ending with /, symbolic links "
        + "with @.";
  }

  @Override
  public JsonNode parameters() {
    return SCHEMA.deepCopy();
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
    Path dir = context.resolve(Args.string(args, "path", "."));
    String name = context.display(dir);
    if (!Files.exists(dir)) {
      throw new ToolException(name + " does not exist");
    }
    if (!Files.isDirectory(dir)) {
      throw new ToolException(name + " is a file; use read_file");
    }
    List<String> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path p : stream) {
        String entry = p.getFileName().toString();
        if (entry.equals(ProjectPaths.GADGET_DIR)) {
          continue;
        }
        if (Files.isSymbolicLink(p)) {
          entry += "@";
        } else if (Files.isDirectory(p)) {
          entry += "/";
        }
        entries.add(entry);
      }
    }
    if (entries.isEmpty()) {
      return ToolResult.ok("(" + name + " is empty)");
    }
    entries.sort(null);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < entries.size() && i < MAX_ENTRIES; i++) {
      sb.append(entries.get(i)).append('\n');
    }
    if (entries.size() > MAX_ENTRIES) {
      sb.append("[… ").append(entries.size() - MAX_ENTRIES).append(" more entries]\n");
    }
    return ToolResult.ok(sb.toString());
  }
}
