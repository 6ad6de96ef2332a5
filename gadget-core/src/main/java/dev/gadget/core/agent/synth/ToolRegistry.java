package dev.gadget.core.agent.synth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a drone knows of the synthesized tools of its projects, kept in one JSON file (a drone
 * keeps it in its workspace's {@code .gadget/}): per project and tool, the version (a digest of
 * its files) and in how many turns that version ran successfully. A tool is experimental until
 * that count reaches {@link #threshold()}; a new version starts again at 0. The tools themselves
 * are files in the projects ({@code .agents/tools/NAME/}); an entry whose files are gone is an
 * orphan, dropped by {@link #cleanOrphans}. Thread-safe; a file that cannot be read is started
 * anew (and said once in the log), a write that fails is logged and the counts kept in memory.
 */
public final class ToolRegistry {
  private static final Logger log = LoggerFactory.getLogger(ToolRegistry.class);
  /** The turns a tool must run successfully in before it is stable, by default. */
  public static final int DEFAULT_THRESHOLD = 3;
  /** The most entries kept; past it, new tools are counted in memory only. */
  public static final int MAX_ENTRIES = 10_000;

  private final Path file;
  private final int threshold;
  private final Map<String, Entry> entries = new LinkedHashMap<>();

  private record Entry(String project, String name, String digest, int turns) {}

  /**
   * The registry in {@code file} (created when first written), a tool being stable after
   * {@code threshold} successful turns.
   */
  public ToolRegistry(Path file, int threshold) {
    if (threshold < 1) {
      throw new IllegalArgumentException("the threshold is 1 turn or more; got " + threshold);
    }
    this.file = file;
    this.threshold = threshold;
    load();
  }

  private void load() {
    if (file == null || !Files.isRegularFile(file)) {
      return;
    }
    try {
      for (JsonNode e : GadgetJson.mapper().readTree(file.toFile()).path("tools")) {
        Entry x = new Entry(e.path("project").asText(), e.path("name").asText(),
            e.path("digest").asText(), e.path("successfulTurns").asInt());
        entries.put(key(x.project(), x.name()), x);
      }
    } catch (IOException e) {
      log.warn("the tool registry {} cannot be read; it starts anew: {}", file, e.getMessage());
    }
  }

  private static String key(String project, String name) {
    return project + "/" + name;
  }

  /** The turns a tool must run successfully in before it is stable. */
  public int threshold() {
    return threshold;
  }

  /** In how many turns the version {@code digest} of {@code project}'s tool {@code name} ran. */
  public synchronized int successfulTurns(String project, String name, String digest) {
    Entry e = entries.get(key(project, name));
    return e == null || !e.digest().equals(digest) ? 0 : e.turns();
  }

  /** Whether that version is still experimental. */
  public boolean experimental(String project, String name, String digest) {
    return successfulTurns(project, name, digest) < threshold;
  }

  /** A new version was registered: it starts experimental. */
  public synchronized void registered(String project, String name, String digest) {
    put(new Entry(project, name, digest, 0));
  }

  /** The version ran successfully in one more turn; the new count. */
  public synchronized int ranInATurn(String project, String name, String digest) {
    int turns = successfulTurns(project, name, digest) + 1;
    put(new Entry(project, name, digest, turns));
    return turns;
  }

  /** A person promoted that version: it is stable now. */
  public synchronized void promote(String project, String name, String digest) {
    put(new Entry(project, name, digest, Math.max(threshold,
        successfulTurns(project, name, digest))));
  }

  /** A person deleted the tool: its entry goes. */
  public synchronized void forget(String project, String name) {
    if (entries.remove(key(project, name)) != null) {
      save();
    }
  }

  private void put(Entry e) {
    String k = key(e.project(), e.name());
    if (!entries.containsKey(k) && entries.size() >= MAX_ENTRIES) {
      log.warn("the tool registry holds {} tools: {} is not kept", MAX_ENTRIES, k);
      return;
    }
    entries.put(k, e);
    save();
  }

  /**
   * Drops the entries whose tool folder is gone: {@code folderOf} gives the folder of a
   * project's tool ({@code project}, {@code name}), or {@code null} when the project is gone.
   * Returns how many were dropped.
   */
  public synchronized int cleanOrphans(BiFunction<String, String, Path> folderOf) {
    int dropped = 0;
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      Path folder = folderOf.apply(e.project(), e.name());
      if (folder == null || !Files.isRegularFile(folder.resolve(ToolSpec.FILE))) {
        it.remove();
        dropped++;
      }
    }
    if (dropped > 0) {
      save();
    }
    return dropped;
  }

  /** How many tools it knows. */
  public synchronized int size() {
    return entries.size();
  }

  private void save() {
    if (file == null) {
      return;
    }
    ObjectNode root = GadgetJson.mapper().createObjectNode();
    ArrayNode tools = root.putArray("tools");
    for (Entry e : entries.values()) {
      tools.addObject().put("project", e.project()).put("name", e.name())
          .put("digest", e.digest()).put("successfulTurns", e.turns());
    }
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, GadgetJson.mapper().writerWithDefaultPrettyPrinter()
          .writeValueAsString(root));
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      log.warn("the tool registry {} cannot be written: {}", file, e.getMessage());
    }
  }
}
