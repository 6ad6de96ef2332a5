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
 * <p>On Unix a command runs as {@code setsid /bin/sh -c command} when {@code setsid} exists: the
 * shell leads a new process group (its id is the shell's pid), so killing the group
 * (in the form {@code kill -KILL -pgid}, which every POSIX shell's built-in takes) reaches every
 * process it started, even those orphaned when their parent died. The descendants
 * found through {@link ProcessHandle#descendants()} are killed as well, which is all there is
 * without {@code setsid} (and on Windows). A process that moved itself to another session or
 * group on purpose (a daemon) escapes both.
 */
public final class ProcessTrees {
  private static final Logger log = LoggerFactory.getLogger(ProcessTrees.class);
  private static final boolean WINDOWS =
      System.getProperty("os.name", "").toLowerCase().startsWith("windows");
  private static final String SETSID = findSetsid();

  private ProcessTrees() {}

  /** The command line that runs {@code command} in a shell, in its own process group if possible. */
  public static List<String> shellCommand(String command) {
    List<String> argv = new ArrayList<>();
    if (WINDOWS) {
      argv.add("cmd.exe");
      argv.add("/c");
    } else {
      if (SETSID != null) {
        argv.add(SETSID);
      }
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
