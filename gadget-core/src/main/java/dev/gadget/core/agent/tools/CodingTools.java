package dev.gadget.core.agent.tools;

import dev.gadget.core.agent.Tool;
import java.util.List;

/**
 * The built-in coding tools, all confined to the project directory:
 * {@code read_file}, {@code write_file}, {@code edit_file}, {@code list_dir}, {@code glob},
 * {@code grep} and {@code run_command}; and {@code update_plan} ({@link PlanTool}), the plan the
 * agent keeps, which touches no file.
 */
public final class CodingTools {
  private CodingTools() {}

  /** Every built-in tool with its defaults. */
  public static List<Tool> all() {
    return List.of(new ReadFileTool(), new WriteFileTool(), new EditFileTool(), new ListDirTool(),
        new GlobTool(), new GrepTool(), new RunCommandTool(), new PlanTool());
  }

  /**
   * The tools that change nothing: read_file, list_dir, glob, grep and update_plan (for a
   * planning mode).
   */
  public static List<Tool> readOnly() {
    return List.of(new ReadFileTool(), new ListDirTool(), new GlobTool(), new GrepTool(),
        new PlanTool());
  }
}
