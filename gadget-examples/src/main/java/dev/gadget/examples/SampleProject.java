package dev.gadget.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The demo's sample project: a small git repository with one commit. */
final class SampleProject {
  private SampleProject() {}

  /**
   * Creates the repository in {@code dir} (which must not exist or be empty).
   *
   * @throws CommandException if git is missing or fails
   */
  static Path create(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir.resolve("src"));
    write(dir.resolve("README.md"), """
        # Greeter

        A tiny sample project for the Gadget demo: a command-line greeter in Java.

        ## Build and run

        ```bash
        javac -d out src/Greeter.java && java -cp out Greeter World
        ```

        ## To do

        - Greet in more languages
        - Add a test
        """);
    write(dir.resolve("src/Greeter.java"), """
        /** Prints a greeting for each name on the command line. */
        public class Greeter {
          static String greet(String name) {
            return "Hello, " + name + "!";
          }

          public static void main(String[] args) {
            for (String name : args.length == 0 ? new String[] {"World"} : args) {
              System.out.println(greet(name));
            }
          }
        }
        """);
    write(dir.resolve("NOTES.md"), """
        # Notes

        Ideas for the greeter: a `--shout` flag, and greetings read from a file.
        """);
    write(dir.resolve(".gitignore"), "out/\n");
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "-c", "user.name=Gadget Demo", "-c", "user.email=demo@gadget.invalid",
        "-c", "commit.gpgsign=false", "commit", "-q", "-m", "The greeter sample project");
    return dir;
  }

  private static void write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  private static void git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    Process p;
    try {
      p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new CommandException("the demo needs git on the PATH: " + e.getMessage(), e);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new CommandException("git " + String.join(" ", args) + " failed: " + out.strip());
    }
  }
}
