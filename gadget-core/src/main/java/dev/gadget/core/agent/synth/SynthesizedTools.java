package dev.gadget.core.agent.synth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.internal.Subfolders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The synthesized tools of a project: each folder {@code .agents/tools/NAME/} holding a
 * {@code tool.json} and its executable, a file tree a person reads, reviews, undoes and commits
 * like any other change.
 */
public final class SynthesizedTools {
  /** The project's folder of synthesized tools. */
  public static final String FOLDER = ".agents/tools";
  /** How the drone host user's library of tools is known in a {@link ToolRegistry}. */
  public static final String USER = "~user";
  /** The most tools read from a project. */
  public static final int MAX_TOOLS = 100;
  /** The largest file of a tool read, in bytes. */
  public static final int MAX_FILE_BYTES = 256 * 1024;

  private SynthesizedTools() {}

  /**
   * The tools of {@code projectDir} (known as {@code project} in {@code registry}), but those
   * whose name is in {@code taken}; what cannot be used goes to {@code problems} in words.
   */
  public static List<SynthesizedTool> load(Path projectDir, String project,
      ToolRegistry registry, Set<String> taken, Consumer<String> problems) {
    return load(projectDir.resolve(FOLDER), projectDir, "the project", FOLDER + "/", project,
        registry, taken, problems);
  }

  /**
   * The tools of the drone host user's library {@code folder} (each {@code NAME/} in it, known
   * as {@link #USER} in {@code registry}), run from their absolute folders; as
   * {@link #load(Path, String, ToolRegistry, Set, Consumer)} otherwise.
   */
  public static List<SynthesizedTool> loadUser(Path folder, ToolRegistry registry,
      Set<String> taken, Consumer<String> problems) {
    Path abs = folder.toAbsolutePath().normalize();
    return load(abs, abs, "the library", abs + "/", USER, registry, taken, problems);
  }

  private static List<SynthesizedTool> load(Path root, Path boundary, String boundaryName,
      String prefix, String project, ToolRegistry registry, Set<String> taken,
      Consumer<String> problems) {
    String where0 = prefix.substring(0, prefix.length() - 1);
    List<SynthesizedTool> out = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return out;
    }
    Collection<Path> folders;
    try {
      folders = Subfolders.of(root);
    } catch (IOException e) {
      problems.accept("the tools in " + where0 + " cannot be listed: " + e.getMessage());
      return out;
    }
    Path realProject;
    try {
      realProject = boundary.toRealPath();
    } catch (IOException e) {
      realProject = boundary.toAbsolutePath().normalize();
    }
    for (Path d : folders) {
      String where = prefix + d.getFileName();
      if (!inside(d, realProject)) {
        problems.accept("tool " + where + " is left out: its folder leads outside "
            + boundaryName);
        continue;
      }
      if (out.size() >= MAX_TOOLS) {
        problems.accept("only the first " + MAX_TOOLS + " tools of " + where0 + " are offered");
        break;
      }
      try {
        ToolSpec spec = read(d);
        List<String> wrong = spec.problems();
        if (!spec.name().equals(d.getFileName().toString())) {
          wrong = new ArrayList<>(wrong);
          wrong.add("its name \"" + spec.name() + "\" is not its folder's");
        }
        if (taken.contains(spec.name())) {
          wrong = List.of("a tool named " + spec.name() + " exists already");
        }
        if (!wrong.isEmpty()) {
          problems.accept("tool " + where + " is left out: " + String.join("; ", wrong));
          continue;
        }
        out.add(new SynthesizedTool(spec, where, project, digest(d, spec), registry));
      } catch (IOException | IllegalArgumentException e) {
        problems.accept("tool " + where + " is left out: " + e.getMessage());
      }
    }
    return out;
  }

  private static boolean inside(Path p, Path realProject) {
    try {
      return p.toRealPath().startsWith(realProject);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The spec in {@code folder}'s {@code tool.json}, whose executable is there too.
   *
   * @throws IOException or {@link IllegalArgumentException}, in words
   */
  static ToolSpec read(Path folder) throws IOException {
    Path file = folder.resolve(ToolSpec.FILE);
    if (!Files.isRegularFile(file)) {
      throw new IOException("it has no " + ToolSpec.FILE);
    }
    JsonNode json;
    try {
      json = GadgetJson.mapper().readTree(bytes(file));
    } catch (IOException e) {
      throw new IOException(ToolSpec.FILE + " is not valid JSON");
    }
    ToolSpec spec = ToolSpec.fromJson(json);
    if (!Files.isRegularFile(folder.resolve(spec.entry()))) {
      throw new IOException("its executable " + spec.entry() + " is missing");
    }
    return spec;
  }

  private static byte[] bytes(Path file) throws IOException {
    if (Files.size(file) > MAX_FILE_BYTES) {
      throw new IOException(file.getFileName() + " is larger than " + MAX_FILE_BYTES / 1024
          + " KiB");
    }
    return Files.readAllBytes(file);
  }

  /** The version of the tool in {@code folder}: a digest of its spec and its executable. */
  static String digest(Path folder, ToolSpec spec) throws IOException {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(bytes(folder.resolve(ToolSpec.FILE)));
      md.update((byte) 0);
      md.update(bytes(folder.resolve(spec.entry())));
      return HexFormat.of().formatHex(md.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing", e);
    }
  }
}
