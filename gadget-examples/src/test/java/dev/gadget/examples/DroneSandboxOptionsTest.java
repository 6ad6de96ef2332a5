package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.examples.CommandsTest.Out;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gadget drone}'s sandbox options, and the demo's sandbox. */
class DroneSandboxOptionsTest {
  @TempDir Path tmp;

  @Test
  void theSandboxOptionsRefuseWhatTheyCannotDoInWords() {
    Map<List<String>, String> bad = Map.of(
        List.of("--sandbox-env", "PATH,GADGET_DRONE_TOKEN"), "gadget drone: --sandbox-env: "
            + "GADGET_DRONE_TOKEN is Gadget's own (the drone's token and keys live there); "
            + "commands never get a GADGET_ variable",
        List.of("--sandbox-env", "OPENAI_API_KEY"), "gadget drone: --sandbox-env: "
            + "OPENAI_API_KEY is an LLM key of the drone's; commands never get it",
        List.of("--sandbox-hide", tmp.resolve("nowhere").toString()), "gadget drone: "
            + "--sandbox-hide: " + tmp.resolve("nowhere") + " is not a directory",
        List.of("--sandbox-read", tmp + "::" + tmp), "gadget drone: --sandbox-read: an empty "
            + "path in \"" + tmp + "::" + tmp + "\"");
    bad.forEach((options, said) -> {
      Out o = new Out();
      List<String> argv = new ArrayList<>(List.of("drone", "--workspace",
          tmp.resolve("ws").toString()));
      argv.addAll(options);
      assertThat(Main.run(argv, o.console(Map.of("GADGET_DRONE_TOKEN", "gdt_x")), false))
          .as(options.toString()).isEqualTo(2);
      assertThat(o.err()).as(options.toString()).contains(said).doesNotContain("Exception");
    });
    assertThat(tmp.resolve("ws")).as("nothing is created").doesNotExist();
    Out help = new Out();
    Main.run(List.of("drone", "--help"), help.console(Map.of()), false);
    assertThat(help.out()).contains("--sandbox-hide DIRS", "--sandbox-read DIRS",
        "--sandbox-env NAMES");
  }

  @Test
  void theDemoHidesItsServersDataDirectoryFromCommands() throws Exception {
    // under target/, not /tmp: a sandbox's /tmp is private, which would hide it anyway
    Path root = Files.createDirectories(Path.of("target", "demo-sandbox-test").toAbsolutePath());
    Path data = Files.createDirectories(root.resolve("data"));
    Path project = Files.createDirectories(root.resolve("workspace/greeter"));
    List<String> argv = DemoCommand.sandbox(root).wrapper(project);
    assertThat(DemoCommand.sandbox(root).policy()).isEqualTo(SandboxPolicy.WORKSPACE_WRITE);
    assertThat(String.join(" ", argv)).contains("--tmpfs " + data.toRealPath(),
        "--remount-ro " + data.toRealPath());
  }
}
