package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.skills.SavePatternTool;
import dev.gadget.core.agent.synth.CreateToolTool;
import dev.gadget.core.agent.synth.SynthesizedTools;
import dev.gadget.core.agent.synth.ToolRegistry;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The drone's synthesized tools: its registry ({@code .gadget/tool-registry.json} in the
 * workspace, its orphans dropped at start), and for each turn the tools of its project's
 * {@code .agents/tools/} plus, when the drone allows it and its sandbox is not read-only,
 * {@code create_tool}. A project is known by its folder's name in the workspace (its slug).
 * Thread-safe.
 */
public final class DroneToolSynthesis {
  /** The registry's file in the workspace. */
  public static final String REGISTRY = ".gadget/tool-registry.json";

  private final Path workspaceDir;
  private final boolean create;
  private final ReportOnce report;
  private final ToolRegistry registry;
  private final int orphansCleaned;
  /** The drone host user's library of tools, or {@code null}. */
  private final Path userFolder;

  /**
   * Opens the registry of {@code workspaceDir} (its lock held), a tool stable after
   * {@value ToolRegistry#DEFAULT_THRESHOLD} successful turns, and drops its orphans;
   * {@code create} offers {@code create_tool}; each problem goes to {@code report} once.
   */
  public DroneToolSynthesis(Path workspaceDir, boolean create, Consumer<String> report) {
    this(workspaceDir, create, null, report);
  }

  /**
   * As {@link #DroneToolSynthesis(Path, boolean, Consumer)}, with the drone host user's library
   * of tools {@code userFolder} ({@code null}: none): its tools offered in every project's
   * turns, and {@code create_tool}'s {@code scope: "user"} writing there.
   */
  public DroneToolSynthesis(Path workspaceDir, boolean create, Path userFolder,
      Consumer<String> report) {
    this.userFolder = userFolder == null ? null : userFolder.toAbsolutePath().normalize();
    this.workspaceDir = workspaceDir;
    this.create = create;
    this.report = new ReportOnce(report);
    this.registry = new ToolRegistry(workspaceDir.resolve(REGISTRY),
        ToolRegistry.DEFAULT_THRESHOLD);
    this.orphansCleaned = registry.cleanOrphans((project, name) -> {
      if (project.equals(SynthesizedTools.USER)) {
        return this.userFolder == null ? null : this.userFolder.resolve(name);
      }
      Path dir = workspaceDir.resolve(project);
      return Files.isDirectory(dir) ? dir.resolve(SynthesizedTools.FOLDER).resolve(name) : null;
    });
    if (orphansCleaned > 0) {
      report.accept("the tool registry dropped " + orphansCleaned + (orphansCleaned == 1
          ? " tool whose files are" : " tools whose files are") + " gone");
    }
  }

  /** How many registry entries were dropped at start because their files were gone. */
  public int orphansCleaned() {
    return orphansCleaned;
  }

  /** The drone host user's library of tools, or {@code null}. */
  Path userFolder() {
    return userFolder;
  }

  /** The registry, for a person's promotions and deletions ({@link AgentToolsRequests}). */
  ToolRegistry registry() {
    return registry;
  }

  /**
   * A turn's tools in {@code projectDir} whose commands run in {@code sandbox}: the project's
   * synthesized tools not named in {@code taken}, and {@code create_tool} and
   * {@code save_pattern} when the drone allows it and the chat ({@code chat}: its setting, or
   * {@code null}) does not say no.
   */
  public List<Tool> forProject(Path projectDir, CommandSandbox sandbox, Set<String> taken,
      Boolean chat) {
    String slug = projectDir.getFileName().toString();
    List<Tool> out = new ArrayList<>(SynthesizedTools.load(projectDir, slug, registry, taken,
        report));
    if (userFolder != null) {
      // the project's own tool of a name wins over the user's, silently
      Set<String> project = new HashSet<>();
      out.forEach(t -> project.add(t.name()));
      SynthesizedTools.loadUser(userFolder, registry, taken, report).stream()
          .filter(t -> !project.contains(t.name())).forEach(out::add);
    }
    if (create && !Boolean.FALSE.equals(chat) && sandbox.policy() != SandboxPolicy.READ_ONLY) {
      out.add(new CreateToolTool(slug, registry, taken, userFolder));
      out.add(new SavePatternTool());
    }
    return out;
  }

  @Override
  public String toString() {
    return "DroneToolSynthesis{" + workspaceDir + ", create=" + create + "}";
  }
}
