package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The structure a newcomer relies on: the page's modules import each other in no circle, and
 * gadget-core's lower layers (the model, the protocol) import nothing from the layers above
 * them (the drone, the server, the agent).
 */
class StructureTest {
  private static final Pattern JS_IMPORT = Pattern.compile("from\\s+'\\./([\\w-]+\\.js)'");

  @Test
  void thePagesModulesImportEachOtherInNoCircle() throws IOException {
    Path app = Path.of("src/main/resources/web/app");
    Map<String, List<String>> imports = new TreeMap<>();
    try (Stream<Path> files = Files.list(app)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".js")).toList()) {
        List<String> to = new ArrayList<>();
        Matcher m = JS_IMPORT.matcher(Files.readString(f));
        while (m.find()) {
          to.add(m.group(1));
        }
        imports.put(f.getFileName().toString(), to);
      }
    }
    assertThat(imports).hasSizeGreaterThan(10);
    List<String> cycles = new ArrayList<>();
    for (String start : imports.keySet()) {
      findCycle(start, start, imports, new HashSet<>(), new ArrayList<>(List.of(start)), cycles);
    }
    assertThat(cycles).as("import circles").isEmpty();
  }

  private static void findCycle(String start, String at, Map<String, List<String>> imports,
      Set<String> seen, List<String> path, List<String> cycles) {
    for (String next : imports.getOrDefault(at, List.of())) {
      if (next.equals(start)) {
        cycles.add(String.join(" -> ", path) + " -> " + start);
      } else if (seen.add(next)) {
        path.add(next);
        findCycle(start, next, imports, seen, path, cycles);
        path.remove(path.size() - 1);
      }
    }
  }

  @Test
  void theModelAndTheProtocolImportNothingFromTheLayersAboveThem() throws IOException {
    Path core = Path.of("../gadget-core/src/main/java/dev/gadget/core");
    Map<String, List<String>> upward = new HashMap<>();
    for (String lower : List.of("model", "protocol")) {
      try (Stream<Path> files = Files.walk(core.resolve(lower))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          for (String line : Files.readAllLines(f)) {
            if (line.matches("import dev\\.gadget\\.core\\.(drone|server|agent)\\..*")
                || line.contains("dev.gadget.core.drone.") && !line.strip().startsWith("*")) {
              upward.computeIfAbsent(f.getFileName().toString(), k -> new ArrayList<>())
                  .add(line.strip());
            }
          }
        }
      }
    }
    assertThat(upward).as("imports from a higher layer").isEmpty();
  }
}
