package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.SystemPrompt;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.skills.ActivateSkillTool;
import dev.gadget.core.agent.skills.SavePatternTool;
import dev.gadget.core.agent.skills.SkillCatalog;
import dev.gadget.core.agent.synth.CreateToolTool;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The drone's Agent Skills: each turn reads those of its project (the work order's project,
 * which is the user's) and of the drone host's user folders, offers {@code activate_skill}
 * (never deferred) and the catalog in the system prompt, and lets commands read the user folders.
 * A problem with a skill is reported once per drone (the same words are not repeated).
 * Thread-safe.
 */
public final class DroneSkills {
  private final List<Path> userFolders;
  private final ReportOnce report;
  private final Consumer<String> reports;
  private final boolean createTools;
  private final Path userTools;

  /** Skills from {@code userFolders} too; each problem goes to {@code report} once. */
  public DroneSkills(List<Path> userFolders, Consumer<String> report) {
    this(userFolders, false, null, report);
  }

  /**
   * As {@link #DroneSkills(List, Consumer)}, and the drone's synthesized tools:
   * {@code createTools} offers {@code create_tool}, {@code userTools} is the user's own library
   * of them ({@code null}: none).
   */
  public DroneSkills(List<Path> userFolders, boolean createTools, Path userTools,
      Consumer<String> report) {
    this.userFolders = List.copyOf(userFolders);
    this.report = new ReportOnce(report);
    this.reports = report;
    this.createTools = createTools;
    this.userTools = userTools;
  }

  /** The synthesized tools of the workspace {@code workspaceDir} (its lock held). */
  public DroneToolSynthesis synthesis(Path workspaceDir) {
    return new DroneToolSynthesis(workspaceDir, createTools, userTools, reports);
  }

  /** The user's folders of skills and of tools, for the sandbox to leave readable. */
  public Path[] userFolders() {
    List<Path> all = new java.util.ArrayList<>(userFolders);
    if (userTools != null) {
      all.add(userTools.toAbsolutePath().normalize());
    }
    return all.toArray(Path[]::new);
  }

  /** The skills of a turn in {@code projectDir}. */
  public SkillCatalog forProject(Path projectDir) {
    return SkillCatalog.discover(projectDir, userFolders, report);
  }

  /**
   * {@code loop} with {@code tools} and offering {@code skills}: {@code activate_skill} added
   * and the catalog after the default system prompt when there is one; {@code activate_skill},
   * {@code create_tool} and {@code save_pattern} (when among the tools) never deferred.
   */
  public static AgentLoop.Builder offer(AgentLoop.Builder loop, SkillCatalog skills,
      List<Tool> tools, ToolDeferral deferral) {
    List<Tool> all = new java.util.ArrayList<>(tools);
    Set<String> always = new HashSet<>(deferral.alwaysLoaded());
    for (Tool t : tools) {
      if (t.name().equals(CreateToolTool.NAME) || t.name().equals(SavePatternTool.NAME)) {
        always.add(t.name());
      }
    }
    if (!skills.isEmpty()) {
      all.add(skills.tool());
      always.add(ActivateSkillTool.NAME);
      loop.systemPrompt(skills.systemPrompt(SystemPrompt.DEFAULT));
    }
    return loop.tools(all).toolDeferral(always.equals(deferral.alwaysLoaded()) ? deferral
        : deferral.alwaysLoaded(always));
  }
}
