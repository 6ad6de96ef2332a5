package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.skills.Skill;
import dev.gadget.core.agent.synth.SynthesizedTool;
import dev.gadget.core.agent.synth.SynthesizedTools;
import dev.gadget.core.agent.synth.ToolRegistry;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.protocol.AgentToolPayloads;
import dev.gadget.core.protocol.AgentToolPayloads.AgentToolsReply;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Ack;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The server's {@code listAgentTools} and {@code changeAgentTool} for a page: the skills and
 * synthesized tools a turn in a project of the workspace is offered, a tool promoted (stable
 * now) or a tool or project skill deleted (its folder goes from the project, a change like any
 * other the next diff shows, and its registry entry). Nothing changes while a turn runs.
 */
final class AgentToolsRequests {
  private final DroneWorkspace workspace;
  private final DroneSkills skills;
  private final DroneToolSynthesis synthesis;
  private final DroneState state;

  AgentToolsRequests(DroneWorkspace workspace, DroneSkills skills, DroneToolSynthesis synthesis,
      DroneState state) {
    this.workspace = workspace;
    this.skills = skills;
    this.synthesis = synthesis;
    this.state = state;
  }

  void onList(List<JsonNode> args, Ack ack) {
    AgentToolPayloads.AgentToolsRequest req = Protocol.payload(args,
        AgentToolPayloads.AgentToolsRequest.class);
    ServerEvents.reply(ack, list(req.slug(), checkout(req.slug())));
  }

  void onChange(List<JsonNode> args, Ack ack) {
    AgentToolPayloads.AgentToolsRequest req = Protocol.payload(args,
        AgentToolPayloads.AgentToolsRequest.class);
    if (req.kind() == null || req.name() == null || req.action() == null) {
      throw new IllegalArgumentException("a change names the kind, the name and the action");
    }
    Path dir = checkout(req.slug());
    state.activeTurnId().ifPresent(t -> {
      throw new WorkspaceException("a turn is running in this workspace; wait for it to end");
    });
    String what = req.kind() + " " + req.name();
    if (req.kind().equals("skill")) {
      if (req.action().equals("promote")) {
        throw new IllegalArgumentException("only a tool is promoted; a skill has no trial");
      }
      Skill skill = skills.forProject(dir).find(req.name())
          .orElseThrow(() -> new IllegalArgumentException("there is no " + what + " here"));
      if (skill.scope() != Skill.Scope.PROJECT) {
        throw new IllegalArgumentException(
            "the " + what + " is in the drone host's user folder, not in the project");
      }
      delete(dir, skill.folder(), what);
    } else {
      ToolRegistry registry = synthesis.registry();
      List<SynthesizedTool> project = tools(dir, req.slug());
      SynthesizedTool tool = project.stream().filter(t -> t.name().equals(req.name()))
          .findFirst().or(() -> userTools(project).stream()
              .filter(t -> t.name().equals(req.name())).findFirst())
          .orElseThrow(() -> new IllegalArgumentException("there is no " + what + " here"));
      boolean user = !project.contains(tool);
      if (req.action().equals("promote")) {
        registry.promote(user ? SynthesizedTools.USER : req.slug(), tool.name(), tool.digest());
      } else if (user) {
        throw new IllegalArgumentException("the " + what + " is in the drone host's user "
            + "library, not in the project");
      } else {
        delete(dir, dir.resolve(SynthesizedTools.FOLDER).resolve(tool.name()), what);
        registry.forget(req.slug(), tool.name());
      }
    }
    ServerEvents.reply(ack, list(req.slug(), dir));
  }

  private Path checkout(String slug) {
    Path dir = workspace.projectDir(slug);
    if (!Files.isDirectory(dir)) {
      throw new WorkspaceException("the project is not checked out in this workspace");
    }
    return dir;
  }

  private List<SynthesizedTool> tools(Path dir, String slug) {
    return SynthesizedTools.load(dir, slug, synthesis.registry(), Set.of(), problem -> { });
  }

  /** The user's library's tools but those {@code project} has a tool of the name of. */
  private List<SynthesizedTool> userTools(List<SynthesizedTool> project) {
    Path library = synthesis.userFolder();
    if (library == null) {
      return List.of();
    }
    Set<String> names = new java.util.HashSet<>();
    project.forEach(t -> names.add(t.name()));
    return SynthesizedTools.loadUser(library, synthesis.registry(), Set.of(), problem -> { })
        .stream().filter(t -> !names.contains(t.name())).toList();
  }

  private AgentToolsReply list(String slug, Path dir) {
    List<AgentToolPayloads.SkillView> skillViews = new ArrayList<>();
    for (Skill s : skills.forProject(dir).skills()) {
      skillViews.add(new AgentToolPayloads.SkillView(s.name(), s.description(), s.shownAs(),
          s.scope().name().toLowerCase(Locale.ROOT)));
    }
    ToolRegistry registry = synthesis.registry();
    List<AgentToolPayloads.ToolView> toolViews = new ArrayList<>();
    List<SynthesizedTool> project = tools(dir, slug);
    for (SynthesizedTool t : project) {
      toolViews.add(view(registry, slug, t, SynthesizedTools.FOLDER + "/" + t.name(),
          "project"));
    }
    for (SynthesizedTool t : userTools(project)) {
      toolViews.add(view(registry, SynthesizedTools.USER, t,
          synthesis.userFolder().resolve(t.name()).toString(), "user"));
    }
    return new AgentToolsReply(true, null, skillViews, toolViews);
  }

  private static AgentToolPayloads.ToolView view(ToolRegistry registry, String key,
      SynthesizedTool t, String folder, String scope) {
    int turns = registry.successfulTurns(key, t.name(), t.digest());
    return new AgentToolPayloads.ToolView(t.name(), t.spec().description(), folder,
        turns < registry.threshold(), turns, registry.threshold(), scope);
  }

  /** Deletes {@code folder} (inside the project {@code dir}) with everything in it. */
  private static void delete(Path dir, Path folder, String what) {
    try {
      if (!folder.toRealPath().startsWith(dir.toRealPath())) {
        throw new IllegalArgumentException("the " + what + "'s folder leads outside the project");
      }
      try (Stream<Path> walk = Files.walk(folder)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException e) {
      throw new WorkspaceException("the " + what + " cannot be deleted: " + e.getMessage(), e);
    }
  }
}
