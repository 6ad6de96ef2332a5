package dev.gadget.transport.ws;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real git repository for tests that run a drone: one commit holding README.md. */
final class SampleRepository {
  private SampleRepository() {}

  /** Creates the bare repository {@code bare} and returns its file URL. */
  static String create(Path bare) throws Exception {
    Path work = bare.resolveSibling("seed-work");
    Files.createDirectories(work);
    git(work, "init", "-q", "-b", "main");
    Files.writeString(work.resolve("README.md"), "hello from the sample project\n");
    git(work, "add", "README.md");
    git(work, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "-m", "init");
    git(bare.getParent(), "clone", "-q", "--bare", work.toString(), bare.toString());
    return bare.toUri().toString();
  }

  private static void git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("git " + String.join(" ", args) + " failed: " + out);
      }
    } finally {
      p.destroyForcibly();
    }
  }
}
