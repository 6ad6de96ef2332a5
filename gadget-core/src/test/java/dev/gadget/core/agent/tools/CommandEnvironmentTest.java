package dev.gadget.core.agent.tools;

import static dev.gadget.core.agent.tools.FileToolsTest.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a command's environment holds: what shells and toolchains need, never a secret. */
class CommandEnvironmentTest {
  @TempDir Path tmp;

  static Map<String, String> droneEnvironment() {
    Map<String, String> env = new HashMap<>();
    env.put("PATH", "/usr/bin:/bin");
    env.put("HOME", "/home/ada");
    env.put("LANG", "C.UTF-8");
    env.put("LC_ALL", "C.UTF-8");
    env.put("JAVA_HOME", "/usr/lib/jvm/17");
    env.put("TMPDIR", "/var/tmp/ada");
    env.put("GADGET_DRONE_TOKEN", "gdt_abcdefghijkl");
    env.put("GADGET_LLM_API_KEY", "not-shaped-but-gadgets");
    env.put("OPENAI_API_KEY", "plain-value-1234");
    env.put("ANTHROPIC_API_KEY", "plain-value-5678");
    env.put("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI");
    env.put("SSH_AUTH_SOCK", "/run/user/1000/ssh-agent");
    env.put("BUILD_FLAVOUR", "fast");
    env.put("BUILD_TOKEN_COPY", "sk-proj-abcdefghijklmnop");
    env.put("BUILD_SECRET_COPY", "the-turns-own-key-123");
    env.put("BUILD_URL", "https://bob:hunter2@ci.example.com/");
    return env;
  }

  @Test
  void onlyTheAllowListAndTheNamedVariablesPassAndNeverASecret() {
    CommandSandbox sandbox = CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE)
        .env("BUILD_FLAVOUR", "BUILD_TOKEN_COPY", "BUILD_SECRET_COPY", "BUILD_URL")
        .withhold("the-turns-own-key-123", null, "ab").build();
    assertThat(sandbox.environment(droneEnvironment())).containsExactlyInAnyOrderEntriesOf(
        Map.of("PATH", "/usr/bin:/bin", "HOME", "/home/ada", "LANG", "C.UTF-8",
            "LC_ALL", "C.UTF-8", "JAVA_HOME", "/usr/lib/jvm/17", "BUILD_FLAVOUR", "fast"));
    // without a sandbox /tmp is the machine's, so TMPDIR stays; the rest is the same
    assertThat(CommandSandbox.none().newBuilder().env("BUILD_FLAVOUR").build()
        .environment(droneEnvironment())).containsEntry("TMPDIR", "/var/tmp/ada")
        .containsEntry("BUILD_FLAVOUR", "fast").doesNotContainKeys("GADGET_DRONE_TOKEN",
            "GADGET_LLM_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
            "AWS_SECRET_ACCESS_KEY", "SSH_AUTH_SOCK");
  }

  @Test
  void aNameThatIsNeverPassedOnIsRefusedInWords() {
    CommandSandbox.Builder b = CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE);
    assertThatIllegalArgumentException().isThrownBy(() -> b.env("GADGET_DRONE_TOKEN"))
        .withMessage("GADGET_DRONE_TOKEN is Gadget's own (the drone's token and keys live "
            + "there); commands never get a GADGET_ variable");
    assertThatIllegalArgumentException().isThrownBy(() -> b.env("OPENAI_API_KEY"))
        .withMessage("OPENAI_API_KEY is an LLM key of the drone's; commands never get it");
    assertThatIllegalArgumentException().isThrownBy(() -> b.env("1=2"))
        .withMessage("\"1=2\" is not an environment variable's name (letters, digits and _, "
            + "not starting with a digit)");
  }

  @Test
  void aCommandSeesNoneOfTheDronesSecretsInAnyMode() throws Exception {
    for (SandboxPolicy policy : SandboxPolicy.values()) {
      CommandSandbox sandbox = (policy == SandboxPolicy.FULL_ACCESS ? CommandSandbox.none()
          : CommandSandbox.of(policy)).newBuilder().withhold(System.getenv("PATH")).build();
      ToolResult r = new RunCommandTool().execute(args("{\"command\":\"env\"}"),
          new RunToolContext(new ProjectPaths(tmp), sandbox));
      // PATH is withheld here, as a secret the drone holds would be: the shell still runs
      assertThat(r.output()).as(policy.toString()).startsWith("exit code: 0")
          .doesNotContain("PATH=" + System.getenv("PATH")).contains("PAGER=cat");
    }
  }
}
