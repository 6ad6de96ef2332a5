package dev.gadget.core.agent.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts shell commands so that their whole process tree can be killed, and kills it.
 *
 * <p>On Unix a command runs as {@code setsid /bin/sh -c command} when {@code setsid} exists
 * (after waiting for {@link #start} to say "go" on its input): the
 * shell leads a new process group (its id is the shell's pid), so killing the group
 * (in the form {@code kill -KILL -pgid}, which every POSIX shell's built-in takes) reaches every
 * process it started, even those orphaned when their parent died. The descendants
 * found through {@link ProcessHandle#descendants()} are killed as well, which is all there is
 * without {@code setsid} (and on Windows). A process that moved itself to another session or
 * group on purpose (a daemon) escapes both.
 *
 * <p>A command must not outlive the process that started it (a drone killed with {@code kill -9}
 * would otherwise leave it running, and its retry would run it a second time): {@link #guard}
 * starts a small shell beside each command's group that holds a pipe from this JVM and kills the
 * group when the pipe closes without a word, which the operating system does when this JVM dies,
 * however it dies.
 */
public final class ProcessTrees {
  private static final Logger log = LoggerFactory.getLogger(ProcessTrees.class);
  private static final boolean WINDOWS =
      System.getProperty("os.name", "").toLowerCase().startsWith("windows");
  private static final String SETSID = findSetsid();

  private ProcessTrees() {}

  /** The command line that runs {@code command} in a shell, in its own process group if possible. */
  public static List<String> shellCommand(String command) {
    return shellCommand(command, List.of());
  }

  /**
   * The command line that runs {@code command} in a shell started by {@code wrapper} (such as a
   * sandbox's command line; empty for none), in its own process group if possible.
   */
  public static List<String> shellCommand(String command, List<String> wrapper) {
    List<String> argv = new ArrayList<>();
    if (WINDOWS) {
      argv.add("cmd.exe");
      argv.add("/c");
    } else {
      if (SETSID != null) {
        argv.add(SETSID);
        argv.add("/bin/sh");
        argv.add("-c");
        // Waits for "go" on its input, sent once its guard runs (see start): a JVM that dies
        // before that leaves nothing running. exec keeps the pid, the group's id.
        argv.add("read -r go && [ \"$go\" = go ] && exec \"$@\"");
        argv.add("gadget-command");
      }
      argv.addAll(wrapper);
      argv.add("/bin/sh");
      argv.add("-c");
    }
    argv.add(command);
    return argv;
  }

  /** Whether commands run in their own process group. */
  public static boolean ownGroup() {
    return SETSID != null;
  }

  /**
   * Kills {@code root} and every process it started, forcibly. Safe to call more than once and
   * after the root has exited (its process group is still killed).
   */
  public static void killTree(ProcessHandle root) {
    List<ProcessHandle> descendants = new ArrayList<>();
    try {
      root.descendants().forEach(descendants::add);
    } catch (RuntimeException e) {
      log.debug("could not list the descendants of {}", root.pid(), e);
    }
    if (SETSID != null) {
      killGroup(root.pid());
    }
    root.destroyForcibly();
    for (ProcessHandle p : descendants) {
      p.destroyForcibly();
    }
  }

  /**
   * Lets a command started with {@link #shellCommand} run: starts the guard of its process group
   * (when commands run in their own group), then sends the command its "go" and closes its input.
   * The guard, or null, for {@link Guard#release()} once the command has ended.
   */
  public static Guard start(Process process) throws IOException {
    Guard guard = SETSID == null ? null : guard(process.toHandle());
    try (var in = process.getOutputStream()) {
      if (SETSID != null) {
        in.write("go\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      }
    } catch (IOException e) {
      if (guard != null) {
        guard.release();
      }
      throw e;
    }
    return guard;
  }

  /** The guard of {@code root}'s process group: it kills the group once this JVM dies. */
  private static Guard guard(ProcessHandle root) {
    long pgid = root.pid();
    try {
      // "read" returns at end of input: a line "done" from release(), or nothing at all when the
      // JVM that holds the pipe's other end died. Its own session: a Ctrl-C to the drone's
      // terminal does not reach it.
      Process p = new ProcessBuilder(SETSID, "/bin/sh", "-c",
          "read -r line; [ \"$line\" = done ] || kill -KILL -" + pgid + " 2>/dev/null")
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      return new Guard(p);
    } catch (IOException e) {
      log.warn("could not guard process group {}: it may outlive this process: {}", pgid,
          e.getMessage());
      return null;
    }
  }

  /** The guard of one command's process group. */
  public static final class Guard {
    private final Process process;

    private Guard(Process process) {
      this.process = process;
    }

    /** The command has ended and its tree was killed: the guard exits without killing. */
    public void release() {
      try (var out = process.getOutputStream()) {
        out.write("done\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      } catch (IOException e) {
        log.debug("the guard of a command had already exited", e);
      }
    }
  }

  private static void killGroup(long pgid) {
    try {
      Process kill = new ProcessBuilder("/bin/sh", "-c", "kill -KILL -" + pgid + " 2>/dev/null")
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      if (!kill.waitFor(5, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
      }
    } catch (IOException e) {
      log.debug("could not kill process group {}", pgid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String findSetsid() {
    if (WINDOWS) {
      return null;
    }
    for (String candidate : new String[] {"/usr/bin/setsid", "/bin/setsid"}) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    log.debug("setsid not found: a command's orphaned children may outlive a kill");
    return null;
  }
}
