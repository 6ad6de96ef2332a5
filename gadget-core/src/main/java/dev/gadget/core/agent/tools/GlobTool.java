package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code glob}: the files whose path matches a glob pattern ({@code **}{@code /*.java},
 * {@code src/*.{js,ts}}), relative to the project directory, sorted; {@code .git} is skipped.
 * Stateless and thread-safe.
 */
public final class GlobTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "glob";
  private static final int MAX_RESULTS = 1000;
  private static final JsonNode SCHEMA = Schemas.object()
      .required("pattern", "string",
          "a glob pattern matched against paths relative to 'path', such as **/*.java")
      .optional("path", "string", "the directory to search (default: the project directory)")
      .build();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Find files by glob pattern (such as **/*.java or src/*.{js,ts}); * stays within a "
        + "directory, ** crosses directories. Lists matching files relative to the project.";
  }

  @Override
  public JsonNode parameters() {
    return SCHEMA.deepCopy();
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
    String pattern = Args.string(args, "pattern");
    Path base = context.resolve(Args.string(args, "path", "."));
    if (!Files.isDirectory(base)) {
      throw new ToolException(context.display(base) + " is not a directory");
    }
    if (pattern.isBlank()) {
      throw new ToolException("pattern is empty");
    }
    PathMatcher matcher = matcher(pattern);
    PathMatcher anyDepth = pattern.startsWith("**/") ? matcher(pattern.substring(3)) : null;
    List<String> found = new ArrayList<>();
    int[] more = {0};
    TreeWalk.files(base, context, (file, rel) -> {
      Path relPath = Path.of(rel);
      if (matcher.matches(relPath) || (anyDepth != null && anyDepth.matches(relPath))) {
        if (found.size() < MAX_RESULTS) {
          found.add(context.display(file));
        } else {
          more[0]++;
        }
      }
      return true;
    });
    if (found.isEmpty()) {
      return ToolResult.ok("no file matches " + pattern + " in " + context.display(base));
    }
    found.sort(null);
    StringBuilder sb = new StringBuilder();
    for (String f : found) {
      sb.append(f).append('\n');
    }
    if (more[0] > 0) {
      sb.append("[… ").append(more[0]).append(" more; narrow the pattern]\n");
    }
    return ToolResult.ok(sb.toString());
  }

  static PathMatcher matcher(String glob) {
    try {
      return FileSystems.getDefault().getPathMatcher("glob:" + glob);
    } catch (IllegalArgumentException e) {
      throw new ToolException("invalid glob pattern " + glob + ": " + e.getMessage());
    }
  }
}
