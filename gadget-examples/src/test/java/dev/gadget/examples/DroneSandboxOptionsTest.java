package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.examples.CommandsFixture.Out;
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
    Path root = Files.createDirectories(Path.of("target", "demo-sandbox-test").toAbsolutePath());
    Path data = Files.createDirectories(root.resolve("data"));
    Files.writeString(data.resolve("secret.key"), "the server's key");
    Path project = Files.createDirectories(root.resolve("workspace/greeter"));
    assertThat(DemoCommand.sandbox(root).policy()).isEqualTo(SandboxPolicy.WORKSPACE_WRITE);
    List<String> cmd = new ArrayList<>(DemoCommand.sandbox(root).wrapper(project));
    cmd.addAll(List.of("/bin/sh", "-c", "cat " + data.resolve("secret.key") + "; echo end"));
    Process p = new ProcessBuilder(cmd).directory(project.toFile()).redirectErrorStream(true)
        .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).isZero();
    assertThat(out).contains("end").doesNotContain("the server's key");
    // where it is not inside a private /tmp anyway, the data directory is hidden explicitly
    if (!data.toRealPath().startsWith("/tmp")) {
      assertThat(String.join(" ", cmd)).contains("--tmpfs " + data.toRealPath());
    }
  }
}
