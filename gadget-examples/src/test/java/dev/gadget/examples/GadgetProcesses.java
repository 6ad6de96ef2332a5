package dev.gadget.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The gadget command as a child JVM of the test, and the log it prints. */
final class GadgetProcesses {
  private GadgetProcesses() {}

  static ProcessBuilder java(String... args) {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        Main.class.getName()));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true);
  }

  static String tail(Path log) {
    String all = read(log);
    return all.substring(Math.max(0, all.length() - 3000));
  }

  static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
