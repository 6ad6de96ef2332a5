package dev.gadget.examples.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The transport's own benchmarks (gadget-transport-ws's test classes, which the reactor build
 * compiled) in a JVM of their own: 2,000,000 one-in-flight round trips, and 10,000 idle
 * connections against Node's.
 */
final class TransportRuns {
  private TransportRuns() {}

  static void stress() throws Exception {
    System.out.println();
    System.out.println("Stress: 2,000,000 one-in-flight round trips from 16 clients");
    List<String> out = run("RoundTripBenchmark", "2000000", "16");
    Matcher late = find(out, "later than 100 ms: (\\d+)");
    Matcher count = find(out, "([\\d,]+) round trips in");
    if (late != null && count != null) {
      long n = Long.parseLong(count.group(1).replace(",", ""));
      Verdicts.verdict("no frame later than 100 ms in >= 2,000,000 round trips",
          n >= 2_000_000 && late.group(1).equals("0"), count.group(1) + " round trips, "
              + late.group(1) + " later than 100 ms");
    }
  }

  static void idle() throws Exception {
    System.out.println();
    System.out.println("Idle: 10,000 connections for 60 s");
    List<String> out = run("IdleCpuBenchmark", "10000", "60");
    Matcher gadget = find(out, "Gadget \\(Java-WebSocket\\)\\s+([\\d.]+)%");
    Matcher node = find(out, "socket.io 4.8 \\(Node\\)\\s+([\\d.]+)%");
    if (gadget != null && node != null) {
      double g = Double.parseDouble(gadget.group(1));
      double n = Double.parseDouble(node.group(1));
      Verdicts.verdict("idle CPU with 10,000 connections <= Node's", g <= n,
          g + "% vs " + n + "% of a core");
    }
  }

  private static List<String> run(String main, String... args) throws Exception {
    Path classes = null;
    for (String dir : new String[] {"../gadget-transport-ws", "gadget-transport-ws"}) {
      if (Files.isDirectory(Path.of(dir, "target/test-classes"))) {
        classes = Path.of(dir).toAbsolutePath();
      }
    }
    if (classes == null) {
      System.out.println("  skipped: gadget-transport-ws/target/test-classes is missing (build "
          + "with -am, as the command in the class comment does)");
      return List.of();
    }
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        classes.resolve("target/test-classes") + File.pathSeparator
            + LiveRun.classPath(), "dev.gadget.transport.ws." + main));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(classes.toFile())
        .redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String l; (l = r.readLine()) != null; ) {
        System.out.println("  " + l);
        lines.add(l);
      }
    }
    p.waitFor();
    return lines;
  }

  private static Matcher find(List<String> lines, String regex) {
    Pattern p = Pattern.compile(regex);
    for (String l : lines) {
      Matcher m = p.matcher(l);
      if (m.find()) {
        return m;
      }
    }
    return null;
  }
}
