package dev.gadget.core.drone;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Executable git configuration as an attacker plants it in a checkout: hooks, config that names
 * programs (fsmonitor, filters, textconv, external diff, pager, ssh, credential helper,
 * upload/receive-pack, gpg, editor), an include of a file in the working tree, attributes in
 * {@code .git/info} and in the tree, and a nested repository with hooks and fsmonitor of its own.
 * Each planted program touches a file named after it in a marker directory, so what ran shows
 * there. The tests plant them with {@link #script} (as a command would) or the file tools.
 */
public final class GitPlants {
  /** The hooks planted. */
  static final List<String> HOOKS = List.of("reference-transaction", "pre-commit", "post-commit",
      "post-checkout", "post-merge", "pre-push", "pre-auto-gc", "post-index-change",
      "post-rewrite", "pre-merge-commit", "prepare-commit-msg", "commit-msg");

  private GitPlants() {}

  /**
   * A shell script, run in the project directory, that plants everything; each part that
   * cannot be written (a read-only {@code .git}) fails on its own and the rest go on.
   */
  public static String script(Path markers) {
    String m = markers.toString();
    StringBuilder sb = new StringBuilder();
    sb.append("M='").append(m).append("'\n");
    sb.append("for h in ").append(String.join(" ", HOOKS)).append("; do\n"
        + "  printf '#!/bin/sh\\ntouch \"%s/hook-%s\"\\n' \"$M\" \"$h\" > .git/hooks/$h"
        + " && chmod +x .git/hooks/$h\n"
        + "done\n");
    String[][] config = {
        {"core.fsmonitor", "touch $M/fsmonitor; true"},
        {"filter.gx.clean", "touch $M/clean; cat"},
        {"filter.gx.smudge", "touch $M/smudge; cat"},
        {"filter.gp.process", "touch $M/process; false"},
        {"diff.gx.textconv", "touch $M/textconv; cat"},
        {"diff.gx.command", "touch $M/diffcmd; true"},
        {"diff.external", "touch $M/extdiff; true"},
        {"core.pager", "touch $M/pager; cat"},
        {"pager.diff", "touch $M/pagerdiff; cat"},
        {"core.sshCommand", "touch $M/ssh; ssh"},
        {"credential.helper", "!touch $M/credential; true"},
        {"remote.origin.uploadpack", "touch $M/uploadpack; git-upload-pack"},
        {"remote.origin.receivepack", "touch $M/receivepack; git-receive-pack"},
        {"gpg.program", "$PWD/gpg-plant.sh"},
        {"commit.gpgSign", "true"},
        {"core.editor", "touch $M/editor; true"},
        {"include.path", "../included.cfg"},
    };
    for (String[] kv : config) {
      sb.append("git config '").append(kv[0]).append("' \"").append(kv[1]).append("\"\n");
    }
    sb.append("printf '[filter \"gi\"]\\n\\tclean = touch %s/included; cat\\n"
        + "\\tsmudge = touch %s/included; cat\\n' \"$M\" \"$M\" > included.cfg\n");
    sb.append("printf '#!/bin/sh\\ntouch \"%s/gpg\"\\nexit 1\\n' \"$M\" > gpg-plant.sh"
        + " && chmod +x gpg-plant.sh\n");
    sb.append("printf '*.attr filter=gx\\n' > .git/info/attributes\n");
    sb.append("printf '*.txt filter=gx diff=gx\\n*.md filter=gp\\n*.inc filter=gi\\n'"
        + " > .gitattributes\n");
    sb.append("git init -q sub && echo nested > sub/file.txt && git -C sub add file.txt"
        + " && git -C sub -c user.name=N -c user.email=n@example.com commit -qm nested\n");
    sb.append("git -C sub config core.fsmonitor \"touch $M/sub-fsmonitor; true\"\n");
    sb.append("git -C sub config filter.gx.clean \"touch $M/sub-clean; cat\"\n");
    sb.append("printf '#!/bin/sh\\ntouch \"%s/sub-hook\"\\n' \"$M\""
        + " > sub/.git/hooks/post-index-change; chmod +x sub/.git/hooks/post-index-change\n");
    sb.append("true\n");
    return sb.toString();
  }

  /** The names of the planted programs that ran (the marker files), sorted. */
  public static List<String> fired(Path markers) throws IOException {
    if (!Files.isDirectory(markers)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(markers)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** Runs {@code script} with {@code sh} in {@code dir} (no sandbox), failing if sh fails. */
  static void run(Path dir, String script) throws Exception {
    Process p = new ProcessBuilder("sh", "-c", script).directory(dir.toFile())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new AssertionError("sh failed: " + out);
    }
  }
}
