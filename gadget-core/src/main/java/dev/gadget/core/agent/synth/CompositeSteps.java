package dev.gadget.core.agent.synth;

import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.model.ToolStep;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observes one run of a composite tool's inner steps, in the bubblewrap sandbox, without the
 * composite's code reporting them: each component's folder is bound read-only at a private path
 * ({@code /tmp/.gadget-steps/tools/NAME}) and a small wrapper the drone wrote lies over the
 * component's {@code run.sh} / {@code run.py} in the project; the wrapper notes the step's start
 * in a log (a file of a drone-owned temporary folder, bound writable at
 * {@code /tmp/.gadget-steps/log}), runs the real executable, and notes its exit code and how long
 * it took. {@link #steps()} reads the log when the run ended: at most 64 KiB, lines of at most
 * 200 characters, only the composite's own components, at most {@link ToolStep#MAX_STEPS} steps.
 *
 * <p>Without a sandbox ({@link SandboxPolicy#FULL_ACCESS}) nothing can lie over a project's file
 * for one command only: {@link #open} returns {@code null} and the run shows no steps. Code in the
 * sandbox could still write the log itself (it is the same user); the drone keeps only lines that
 * name a component. One run, one thread; {@link #close()} deletes the temporary folder.
 */
final class CompositeSteps implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CompositeSteps.class);
  /** Where the wrappers find the real components and the log, inside the sandbox. */
  static final Path INSIDE = Path.of("/tmp/.gadget-steps");
  private static final int MAX_LOG = 64 * 1024;
  private static final int MAX_LINE = 200;
  private static final Pattern LINE = Pattern.compile(
      "(start|end) ([a-z][a-z0-9_]{0,63})(?: (-?\\d{1,6}) (\\d{1,12}|-))?");
  private static final List<String> ENTRIES = List.of("run.sh", "run.py");

  private static final java.util.concurrent.atomic.AtomicBoolean WARNED =
      new java.util.concurrent.atomic.AtomicBoolean();

  private final Path dir;
  private final Set<String> components;
  private final CommandSandbox sandbox;

  private CompositeSteps(Path dir, Set<String> components, CommandSandbox sandbox) {
    this.dir = dir;
    this.components = components;
    this.sandbox = sandbox;
  }

  /**
   * Prepares to observe a run of {@code spec} (a composite tool) under {@code context}'s sandbox;
   * {@code null} when there is nothing to observe or no sandbox to observe it in.
   */
  static CompositeSteps open(ToolSpec spec, ToolContext context) {
    if (spec.components().isEmpty()
        || context.sandbox().policy() == SandboxPolicy.FULL_ACCESS) {
      return null;
    }
    Path dir = null;
    try {
      dir = Files.createTempDirectory("gadget-steps");
      Path stepLog = Files.createFile(dir.resolve("log"));
      Path tools = context.projectDir().toRealPath().resolve(SynthesizedTools.FOLDER);
      CommandSandbox.Builder b = context.sandbox().newBuilder()
          .bind(stepLog, INSIDE.resolve("log"), true);
      List<Path[]> wrappers = new ArrayList<>();
      for (String c : spec.components()) {
        Path folder = tools.resolve(c);
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        b.bind(folder, INSIDE.resolve("tools").resolve(c), false);
        for (String entry : ENTRIES) {
          Path real = folder.resolve(entry);
          if (Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
            Path w = Files.createDirectories(dir.resolve("wrap").resolve(c)).resolve(entry);
            Files.writeString(w, wrapper(c, entry), StandardCharsets.UTF_8);
            wrappers.add(new Path[] {w, real});
          }
        }
      }
      // after the folders' binds, which must show the real files
      for (Path[] w : wrappers) {
        b.bind(w[0], w[1], false);
      }
      return new CompositeSteps(dir, Set.copyOf(spec.components()), b.build());
    } catch (IOException | RuntimeException e) {
      warn("a composite tool's steps cannot be observed: {}", e);
      delete(dir);
      return null;
    }
  }

  /** {@code inner} with the sandbox that observes the steps. */
  ToolContext context(ToolContext inner) {
    return new Observed(inner, sandbox);
  }

  /** The steps the log holds, in the order they started. */
  List<ToolStep> steps() {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(dir.resolve("log"))) {
      bytes = in.readNBytes(MAX_LOG);
    } catch (IOException e) {
      warn("a composite tool's step log cannot be read: {}", e);
      return List.of();
    }
    List<String[]> open = new ArrayList<>(); // {name, exit code, ms} per step, in order
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
      Matcher m = LINE.matcher(line);
      if (line.length() > MAX_LINE || !m.matches() || !components.contains(m.group(2))) {
        continue;
      }
      if (m.group(1).equals("start") && m.group(3) == null) {
        if (open.size() < ToolStep.MAX_STEPS) {
          open.add(new String[] {m.group(2), null, null});
        }
      } else if (m.group(1).equals("end") && m.group(3) != null) {
        for (int i = open.size() - 1; i >= 0; i--) {
          String[] s = open.get(i);
          if (s[0].equals(m.group(2)) && s[1] == null) {
            s[1] = m.group(3);
            s[2] = m.group(4);
            break;
          }
        }
      }
    }
    List<ToolStep> out = new ArrayList<>();
    for (String[] s : open) {
      out.add(new ToolStep(s[0], s[1] == null ? null : Integer.valueOf(s[1]),
          s[1] == null || "-".equals(s[2]) ? null : Long.valueOf(s[2])));
    }
    return out;
  }

  @Override
  public void close() {
    delete(dir);
  }

  /** The wrapper over component {@code name}'s {@code entry}, in the entry's language. */
  static String wrapper(String name, String entry) {
    String real = INSIDE.resolve("tools").resolve(name).resolve(entry).toString();
    String stepLog = INSIDE.resolve("log").toString();
    if (entry.endsWith(".py")) {
      return "# Written by the Gadget drone: runs the tool " + name + " and notes the step.\n"
          + "import subprocess, sys, time\n"
          + "def note(line):\n"
          + "    with open('" + stepLog + "', 'a') as f:\n"
          + "        f.write(line + '\\n')\n"
          + "note('start " + name + "')\n"
          + "t = time.monotonic()\n"
          + "c = subprocess.call([sys.executable, '" + real + "'] + sys.argv[1:])\n"
          + "note('end " + name + " %d %d' % (c, int((time.monotonic() - t) * 1000)))\n"
          + "sys.exit(c if c >= 0 else 128 - c)\n";
    }
    return "#!/bin/sh\n"
        + "# Written by the Gadget drone: runs the tool " + name + " and notes the step.\n"
        + "printf 'start " + name + "\\n' >> " + stepLog + "\n"
        + "s=$(date +%s%N 2>/dev/null)\n"
        + "sh " + real + " \"$@\"\n"
        + "c=$?\n"
        + "e=$(date +%s%N 2>/dev/null)\n"
        + "case \"$s$e\" in *[!0-9]*|'') d=-;; *) d=$(( (e - s) / 1000000 ));; esac\n"
        + "printf 'end " + name + " %s %s\\n' \"$c\" \"$d\" >> " + stepLog + "\n"
        + "exit $c\n";
  }

  /** A problem: at WARN the first time, then at DEBUG. */
  private static void warn(String message, Exception e) {
    if (WARNED.compareAndSet(false, true)) {
      log.warn(message, e.toString());
    } else {
      log.debug(message, e.toString());
    }
  }

  private static void delete(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      log.debug("could not delete {}", dir, e);
    }
  }

  /** A tool context whose commands run in the observing sandbox. */
  private record Observed(ToolContext inner, CommandSandbox sandbox) implements ToolContext {
    @Override
    public Path projectDir() {
      return inner.projectDir();
    }

    @Override
    public Path resolve(String path) {
      return inner.resolve(path);
    }

    @Override
    public String display(Path file) {
      return inner.display(file);
    }

    @Override
    public boolean isCancelled() {
      return inner.isCancelled();
    }

    @Override
    public Registration onCancel(Runnable action) {
      return inner.onCancel(action);
    }

    @Override
    public <T> T state(Class<T> type, Supplier<? extends T> factory) {
      return inner.state(type, factory);
    }

    @Override
    public void output(String text) {
      inner.output(text);
    }
  }
}
