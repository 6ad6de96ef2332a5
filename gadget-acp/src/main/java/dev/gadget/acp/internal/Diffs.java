package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.tools.EditFileTool;
import dev.gadget.core.agent.tools.ReadFileTool;
import dev.gadget.core.agent.tools.WriteFileTool;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The file tools of a session, and the diff each edit made, for the {@code diff} content block
 * of its {@code tool_call_update}: with the editor's file system, Gadget's own read, write and
 * edit tools over {@code fs/*} ({@link EditorFileTools}); without, the core's tools on disk, each
 * edit's file read before and after it.
 */
final class Diffs {
  /** One edit: the file, its text before ({@code null} for a new file) and after. */
  record Diff(Path path, String oldText, String newText) {}

  private Diffs() {}

  static List<Tool> fileTools(List<Tool> tools, Session session, ClientCapabilities client) {
    List<Tool> out = new ArrayList<>();
    for (Tool t : tools) {
      String name = t.name();
      boolean fileTool = name.equals(ReadFileTool.NAME) || name.equals(WriteFileTool.NAME)
          || name.equals(EditFileTool.NAME);
      if (fileTool && client.anyFs()) {
        out.add(EditorFileTools.of(name, session, client));
      } else if (name.equals(WriteFileTool.NAME) || name.equals(EditFileTool.NAME)) {
        out.add(new OnDisk(t, session.lastDiff()));
      } else {
        out.add(t);
      }
    }
    return out;
  }

  /** A core file tool whose edit is recorded as a diff: the file read before and after. */
  private static final class OnDisk implements Tool {
    private final Tool delegate;
    private final AtomicReference<Diff> last;

    OnDisk(Tool delegate, AtomicReference<Diff> last) {
      this.delegate = delegate;
      this.last = last;
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public String description() {
      return delegate.description();
    }

    @Override
    public JsonNode parameters() {
      return delegate.parameters();
    }

    @Override
    public ToolResult execute(JsonNode arguments, ToolContext context) throws Exception {
      last.set(null);
      Path file = context.resolve(arguments.path("path").asText(""));
      String before = text(file);
      ToolResult result = delegate.execute(arguments, context);
      if (!result.error()) {
        String after = text(file);
        if (after != null) {
          last.set(new Diff(file, before, after));
        }
      }
      return result;
    }

    private static String text(Path file) {
      try {
        return Files.isRegularFile(file) ? Files.readString(file) : null;
      } catch (CharacterCodingException e) {
        return null; // not text: no diff to show
      } catch (IOException e) {
        return null;
      }
    }
  }
}
