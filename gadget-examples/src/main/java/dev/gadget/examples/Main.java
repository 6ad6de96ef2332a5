package dev.gadget.examples;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * The {@code gadget} command: {@code java -jar gadget.jar <command> [options]}. Commands:
 * {@code demo}, {@code server}, {@code drone}, {@code user}, {@code acp}; each takes
 * {@code --help}.
 */
public final class Main {
  static final String VERSION = versionOf();

  private Main() {}

  /** Runs a command and exits with its code. */
  public static void main(String[] argv) {
    Console console = Console.system();
    int code = run(List.of(argv), console, true);
    if (code != 0) {
      System.exit(code);
    }
  }

  static Map<String, Command> commands() {
    Map<String, Command> all = new LinkedHashMap<>();
    for (Command c : List.of(new DemoCommand(), new ServerCommand(), new DroneCommand(),
        new UserCommand(), new AcpCommand())) {
      all.put(c.name(), c);
    }
    return all;
  }

  /**
   * Runs {@code argv}. With {@code block}, a long-running command keeps running until the JVM is
   * asked to stop (Ctrl-C) or it stops by itself; without, it is closed again at once (tests).
   *
   * @return the exit code: 0 done, 1 failed, 2 wrong command line
   */
  static int run(List<String> argv, Console console, boolean block) {
    Map<String, Command> commands = commands();
    if (argv.isEmpty() || argv.get(0).equals("--help") || argv.get(0).equals("-h")
        || argv.get(0).equals("help")) {
      printOverview(console.out(), commands);
      return argv.isEmpty() ? 2 : 0;
    }
    if (argv.get(0).equals("--version")) {
      console.out().println("gadget " + VERSION);
      return 0;
    }
    Command command = commands.get(argv.get(0));
    if (command == null) {
      console.err().println("gadget: unknown command '" + argv.get(0) + "'");
      printOverview(console.err(), commands);
      return 2;
    }
    Running running;
    try {
      Args args = Args.parse(command.options(), argv.subList(1, argv.size()));
      if (args.help()) {
        printHelp(console.out(), command);
        return 0;
      }
      running = command.run(args, console);
    } catch (UsageException e) {
      console.err().println("gadget " + command.name() + ": " + e.getMessage());
      console.err().println("Run 'java -jar gadget.jar " + command.name() + " --help' for its "
          + "options.");
      return 2;
    } catch (CommandException e) {
      console.err().println("gadget " + command.name() + ": " + e.getMessage());
      return 1;
    } catch (Exception e) {
      console.err().println("gadget " + command.name() + " failed: " + e);
      return 1;
    }
    if (running == null) {
      return 0;
    }
    if (!block) {
      running.close();
      return 0;
    }
    Thread hook = new Thread(running::close, "gadget-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      int code = running.exitCode().get();
      running.close();
      return code;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (ExecutionException e) {
      return 1;
    }
  }

  private static void printOverview(PrintStream out, Map<String, Command> commands) {
    out.println("Gadget " + VERSION + ": a server, a drone and a web chat for agentic coding.");
    out.println();
    out.println("Usage: java -jar gadget.jar <command> [options]");
    out.println();
    out.println("Commands:");
    for (Command c : commands.values()) {
      out.printf("  %-8s %s%n", c.name(), c.summary());
    }
    out.println();
    out.println("Run 'java -jar gadget.jar <command> --help' for a command's options.");
  }

  static void printHelp(PrintStream out, Command command) {
    out.println(command.description().stripTrailing());
    out.println();
    out.println("Options:");
    for (OptionSpec o : command.options()) {
      String left = "--" + o.name() + (o.isFlag() ? "" : " " + o.valueName());
      out.printf("  %-24s %s%n", left, o.description());
    }
    out.printf("  %-24s %s%n", "--help", "show this help");
  }

  /**
   * How to run this jar again from the current directory: {@code java -jar <its path>}, the
   * path relative to the working directory when the jar is under it (so a suggested command
   * works as printed from the repository's root too); {@code java -jar gadget.jar} when not
   * run from a jar.
   */
  static String command() {
    return command(jarPath(), Path.of("").toAbsolutePath());
  }

  static String command(Path jar, Path cwd) {
    if (jar == null) {
      return "java -jar gadget.jar";
    }
    Path shown = jar.startsWith(cwd) ? cwd.relativize(jar) : jar;
    String s = shown.toString();
    return "java -jar " + (s.matches("[A-Za-z0-9_./@%+=:,-]+") ? s : "'" + s + "'");
  }

  private static Path jarPath() {
    try {
      java.security.CodeSource src = Main.class.getProtectionDomain().getCodeSource();
      Path p = src == null ? null : Path.of(src.getLocation().toURI()).toAbsolutePath();
      return p != null && p.toString().endsWith(".jar") && Files.isRegularFile(p) ? p : null;
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return null;
    }
  }

  private static String versionOf() {
    String v = Main.class.getPackage() == null ? null
        : Main.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-SNAPSHOT" : v;
  }
}
