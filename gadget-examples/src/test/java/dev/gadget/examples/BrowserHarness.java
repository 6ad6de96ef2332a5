package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code src/test/node/page.js} (playwright-core driving a headless Chromium: the one
 * {@code $GADGET_CHROMIUM} names, else {@code chromium} or {@code chromium-browser} on the PATH)
 * for one scenario and returns its result. Reads JSON lines from its stdout; kills node and every
 * process it started (Chromium) in {@code finally}, whatever happened.
 */
final class BrowserHarness {
  static final Path DIR = Path.of("src/test/node").toAbsolutePath();
  static final Duration LIMIT = Duration.ofSeconds(90);
  /** The README's test command, which installs Chromium when it is missing. */
  static final String INSTALL_AND_TEST = "./test.sh";
  static final List<String> NAMES = List.of("chromium", "chromium-browser");

  private BrowserHarness() {}

  /**
   * The Chromium the browser tests drive, found in {@code env}: {@code GADGET_CHROMIUM}, else
   * {@link #NAMES} on its {@code PATH}. Fails with one line saying how to get one.
   */
  static Path chromium(Map<String, String> env) {
    String given = env.get("GADGET_CHROMIUM");
    if (given != null && !given.isBlank()) {
      Path p = Path.of(given);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
      throw new AssertionError("GADGET_CHROMIUM=" + given + " is not an executable file: point "
          + "it at a Chromium or Chrome binary, or unset it to use chromium from the PATH");
    }
    String path = env.getOrDefault("PATH", "");
    for (String name : NAMES) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        if (dir.isEmpty()) {
          continue;
        }
        Path p = Path.of(dir, name);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return p;
        }
      }
    }
    throw new AssertionError("The browser tests need Chromium and found none (no chromium or "
        + "chromium-browser on the PATH, no GADGET_CHROMIUM): run " + INSTALL_AND_TEST
        + ", which installs it (apt-get install -y chromium) and runs the tests, or set "
        + "GADGET_CHROMIUM to a Chromium or Chrome binary.");
  }

  /** {@link #chromium(Map)} in this process's environment. */
  static Path chromium() {
    return chromium(System.getenv());
  }

  /** The scenario's {@code result} object; fails with node's output when it reports an error. */
  static JsonNode run(Map<String, Object> config) throws Exception {
    Path chromium = chromium();
    assertThat(DIR.resolve("node_modules/playwright-core")).as(
        "playwright-core is installed by the build (npm ci in %s)", DIR).exists();
    return run("page.js", config, Map.of("GADGET_CHROMIUM", chromium.toString()));
  }

  /**
   * Runs the node script {@code script} of {@link #DIR} with {@code config} and returns its
   * {@code result} object, as {@link #run(Map)} does for page.js.
   */
  static JsonNode run(String script, Map<String, Object> config, Map<String, String> env)
      throws Exception {
    Path err = Files.createTempFile("gadget-node-", ".stderr");
    ProcessBuilder pb = new ProcessBuilder("node", script,
        GadgetJson.mapper().writeValueAsString(config))
        .directory(DIR.toFile())
        .redirectError(err.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    List<String> lines = new ArrayList<>();
    try {
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(
            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            synchronized (lines) {
              lines.add(line);
            }
          }
        } catch (IOException e) {
          // the process was killed
        }
      }, "node-stdout");
      reader.setDaemon(true);
      reader.start();
      boolean exited = p.waitFor(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      reader.join(5_000);
      String diagnostics = "node " + script + " printed " + snapshot(lines) + "; stderr: "
          + tail(Files.readString(err));
      assertThat(exited).as("%s finished within %s; %s", script, LIMIT, diagnostics).isTrue();
      JsonNode last = null;
      for (String line : snapshot(lines)) {
        JsonNode n = GadgetJson.mapper().readTree(line);
        if (n.path("type").asText().equals("result") || n.path("type").asText().equals("error")) {
          last = n;
        }
      }
      assertThat(last).as("a result line; %s", diagnostics).isNotNull();
      assertThat(last.path("type").asText()).as("%s: %s", script, last.path("message").asText())
          .isEqualTo("result");
      assertThat(last.path("problems")).as("errors in the page's console").isEmpty();
      return last.get("result");
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      Files.deleteIfExists(err);
    }
  }

  private static List<String> snapshot(List<String> lines) {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  private static String tail(String s) {
    return s.length() <= 4000 ? s : "…" + s.substring(s.length() - 4000);
  }
}
