package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Commits files a test added to a sample project, so that a drone's checkout has them. */
final class ProjectGit {
  private ProjectGit() {}

  /** {@code git add -A} and {@code git commit} in {@code dir}, with a test author. */
  static void commitAll(Path dir, String message) throws Exception {
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", message);
  }

  private static void git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-c", "user.name=Test", "-c",
        "user.email=test@gadget.invalid"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }
}
