package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.tools.EditFileTool;
import dev.gadget.core.agent.tools.ReadFileTool;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.agent.tools.WriteFileTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code read_file}, {@code write_file} and {@code edit_file} through the editor's
 * {@code fs/read_text_file} and {@code fs/write_text_file} (whichever it offers; the disk for
 * the other), so that the agent reads unsaved buffers and the editor shows its edits. Same
 * arguments and rules as the core's tools: paths confined to the project, a file written or
 * edited only once read in the turn and unchanged since, an edit's text found exactly once.
 */
final class EditorFileTools {
  /** How long the editor may take to read or write a file. */
  static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final int MAX_CHARS = 100_000;

  private EditorFileTools() {}

  static Tool of(String name, Session session, ClientCapabilities client) {
    Tool core = name.equals(ReadFileTool.NAME) ? new ReadFileTool()
        : name.equals(WriteFileTool.NAME) ? new WriteFileTool() : new EditFileTool();
    return new Tool() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return core.description();
      }

      @Override
      public JsonNode parameters() {
        return core.parameters();
      }

      @Override
      public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
        Access files = new Access(session, client, context);
        switch (name) {
          case ReadFileTool.NAME:
            return files.read(args);
          case WriteFileTool.NAME:
            return files.write(args);
          default:
            return files.edit(args);
        }
      }
    };
  }

  /** What the agent last read or wrote of each file in this run. */
  private static final class Seen {
    final Map<Path, String> texts = new ConcurrentHashMap<>();
  }

  private static final class Access {
    private final Session session;
    private final ClientCapabilities client;
    private final ToolContext context;

    Access(Session session, ClientCapabilities client, ToolContext context) {
      this.session = session;
      this.client = client;
      this.context = context;
    }

    ToolResult read(JsonNode args) throws Exception {
      Path file = context.resolve(string(args, "path"));
      String name = context.display(file);
      String text = load(file);
      if (text == null) {
        throw new ToolException(name + " does not exist");
      }
      context.state(Seen.class, Seen::new).texts.put(file, text);
      Integer start = args.path("start_line").canConvertToInt() ? args.get("start_line").asInt()
          : null;
      Integer end = args.path("end_line").canConvertToInt() ? args.get("end_line").asInt() : null;
      if (start == null && end == null) {
        return ToolResult.ok(text.isEmpty() ? "(" + name + " is empty)" : cap(text));
      }
      List<String> lines = List.of(text.split("(?<=\n)"));
      int total = text.isEmpty() ? 0 : lines.size();
      int from = start == null ? 1 : start;
      int to = end == null ? total : Math.min(end, total);
      if (from < 1 || from > total || to < from) {
        throw new ToolException("lines " + from + " to " + to + " are not in " + name
            + ", which has " + total + " lines");
      }
      StringBuilder sb = new StringBuilder("[" + name + ": lines " + from + "-" + to + " of "
          + total + "]\n");
      for (int i = from - 1; i < to; i++) {
        sb.append(lines.get(i));
      }
      return ToolResult.ok(cap(sb.toString()));
    }

    ToolResult write(JsonNode args) throws Exception {
      writable(WriteFileTool.NAME);
      Path file = context.resolve(string(args, "path"));
      String content = string(args, "content");
      String before = load(file);
      if (before != null) {
        unchanged(file, before, WriteFileTool.NAME);
      }
      save(file, before, content);
      return ToolResult.ok((before == null ? "Created " : "Replaced ") + context.display(file)
          + " (" + content.lines().count() + " lines)");
    }

    ToolResult edit(JsonNode args) throws Exception {
      writable(EditFileTool.NAME);
      Path file = context.resolve(string(args, "path"));
      String oldText = string(args, "old_text");
      String newText = string(args, "new_text");
      String name = context.display(file);
      String text = load(file);
      if (text == null) {
        throw new ToolException(name + " does not exist");
      }
      unchanged(file, text, EditFileTool.NAME);
      if (oldText.isEmpty() || oldText.equals(newText)) {
        throw new ToolException(oldText.isEmpty() ? "old_text is empty; give the exact text to "
            + "replace" : "old_text and new_text are the same; nothing to change");
      }
      int at = text.indexOf(oldText);
      if (at < 0) {
        throw new ToolException("old_text was not found in " + name + "; nothing was changed. "
            + "Copy it exactly from read_file's output.");
      }
      if (text.indexOf(oldText, at + 1) >= 0) {
        throw new ToolException("old_text occurs more than once in " + name + "; nothing was "
            + "changed. Include more of the surrounding lines.");
      }
      String updated = text.substring(0, at) + newText + text.substring(at + oldText.length());
      save(file, text, updated);
      return ToolResult.ok("Edited " + name + " at line "
          + (text.substring(0, at).split("\n", -1).length) + ".");
    }

    private void writable(String tool) {
      if (context.sandbox().policy() == SandboxPolicy.READ_ONLY) {
        throw new ToolException(tool + " refused: the sandbox is read-only; say what you would "
            + "change instead");
      }
    }

    private void unchanged(Path file, String current, String tool) {
      String seen = context.state(Seen.class, Seen::new).texts.get(file);
      if (seen == null) {
        throw new ToolException(tool + " refused: read " + context.display(file) + " with "
            + "read_file first (it was not read in this turn)");
      }
      if (!seen.equals(current)) {
        throw new ToolException(tool + " refused: " + context.display(file) + " changed since "
            + "you read it (the user may be editing it). Read it again, then retry.");
      }
    }

    /** The file's text, or {@code null} when it does not exist. */
    private String load(Path file) throws Exception {
      if (!client.readTextFile()) {
        if (Files.isDirectory(file)) {
          throw new ToolException(context.display(file) + " is a directory; use list_dir");
        }
        return Files.isRegularFile(file) ? Files.readString(file)
            : null;
      }
      ObjectNode params = GadgetJson.mapper().createObjectNode().put("sessionId", session.id())
          .put("path", file.toString());
      try {
        JsonNode result = await(session.connection().call("fs/read_text_file", params));
        return result == null ? "" : result.path("content").asText("");
      } catch (RpcException e) {
        if (!Files.exists(file)) {
          return null; // the editor has no such file either
        }
        throw new ToolException("the editor could not read " + context.display(file) + ": "
            + e.getMessage());
      }
    }

    private void save(Path file, String before, String after) throws Exception {
      if (client.writeTextFile()) {
        ObjectNode params = GadgetJson.mapper().createObjectNode()
            .put("sessionId", session.id()).put("path", file.toString()).put("content", after);
        try {
          await(session.connection().call("fs/write_text_file", params));
        } catch (RpcException e) {
          throw new ToolException("the editor could not write " + context.display(file) + ": "
              + e.getMessage());
        }
      } else {
        Files.createDirectories(file.getParent());
        Files.writeString(file, after);
      }
      context.state(Seen.class, Seen::new).texts.put(file, after);
      session.lastDiff().set(new Diffs.Diff(file, before, after));
    }

    private JsonNode await(CompletableFuture<JsonNode> call) throws Exception {
      try (ToolContext.Registration r = context.onCancel(() -> call.cancel(false))) {
        return call.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw e.getCause() instanceof RpcException rpc ? rpc : e;
      } catch (TimeoutException e) {
        call.cancel(false);
        throw new ToolException("the editor did not answer within " + TIMEOUT.toSeconds() + " s");
      }
    }

    private static String string(JsonNode args, String key) {
      JsonNode v = args.get(key);
      if (v == null || !v.isTextual()) {
        throw new ToolException("\"" + key + "\" is required and must be a string");
      }
      return v.asText();
    }

    private static String cap(String text) {
      return text.length() <= MAX_CHARS ? text : text.substring(0, MAX_CHARS) + "\n[… cut at "
          + MAX_CHARS + " of " + text.length() + " chars; read the rest with start_line and "
          + "end_line]";
    }
  }
}
