package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code grep}: the lines matching a Java regular expression, as {@code path:line: text}, in the
 * files under a directory (or one file). Binary files, files over 2 MiB, {@code .git} and symbolic
 * links leading outside the project are skipped. Stateless and thread-safe.
 */
public final class GrepTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "grep";
  private static final int MAX_MATCHES = 200;
  private static final int MAX_LINE_CHARS = 300;
  private static final long MAX_FILE_BYTES = 2L << 20;
  private static final JsonNode SCHEMA = Schemas.object()
      .required("pattern", "string", "a Java regular expression, such as class\\s+Foo")
      .optional("path", "string", "the file or directory to search (default: the project)")
      .optional("include", "string", "a glob the file names must match, such as *.java")
      .optional("ignore_case", "boolean", "match without regard to case (default false)")
      .build();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Search file contents with a regular expression. Prints matching lines as "
        + "path:line: text (at most " + MAX_MATCHES + ").";
  }

  @Override
  public JsonNode parameters() {
    return SCHEMA.deepCopy();
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
    String regex = Args.string(args, "pattern");
    Path base = context.resolve(Args.string(args, "path", "."));
    String include = Args.string(args, "include", null);
    boolean ignoreCase = Args.bool(args, "ignore_case");
    Pattern pattern;
    try {
      pattern = Pattern.compile(regex, ignoreCase
          ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
    } catch (PatternSyntaxException e) {
      throw new ToolException("invalid regular expression: " + e.getDescription() + " near "
          + "index " + e.getIndex() + " of " + regex);
    }
    if (!Files.exists(base)) {
      throw new ToolException(context.display(base) + " does not exist");
    }
    PathMatcher includeMatcher = include == null ? null : GlobTool.matcher(include);
    StringBuilder out = new StringBuilder();
    int[] matches = {0};
    if (Files.isDirectory(base)) {
      TreeWalk.files(base, context, (file, rel) -> {
        if (includeMatcher != null && !includeMatcher.matches(file.getFileName())
            && !includeMatcher.matches(Path.of(rel))) {
          return true;
        }
        return search(file, context, pattern, out, matches);
      });
    } else {
      search(base, context, pattern, out, matches);
    }
    if (matches[0] == 0) {
      return ToolResult.ok("no match for " + regex + " in " + context.display(base));
    }
    if (matches[0] > MAX_MATCHES) {
      out.append("[… stopped after ").append(MAX_MATCHES)
          .append(" matches; narrow the pattern or the path]\n");
    }
    return ToolResult.ok(out.toString());
  }

  /** Appends the matches of one file; {@code false} once the cap is passed. */
  private static boolean search(Path file, ToolContext context, Pattern pattern,
      StringBuilder out, int[] matches) {
    if (!TreeWalk.readable(file, context)) {
      return true;
    }
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        return true;
      }
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      return true;
    }
    for (int i = 0; i < Math.min(bytes.length, 8192); i++) {
      if (bytes[i] == 0) {
        return true;
      }
    }
    String name = context.display(file);
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher m = pattern.matcher(lines[i]);
      if (m.find()) {
        matches[0]++;
        if (matches[0] > MAX_MATCHES) {
          return false;
        }
        String line = lines[i].length() > MAX_LINE_CHARS
            ? lines[i].substring(0, MAX_LINE_CHARS) + "…" : lines[i];
        out.append(name).append(':').append(i + 1).append(": ").append(line).append('\n');
      }
    }
    return true;
  }
}
