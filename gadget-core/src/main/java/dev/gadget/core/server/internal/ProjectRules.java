package dev.gadget.core.server.internal;

import dev.gadget.core.model.Project;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a new project must be, checked before it is stored, with the reason in people's words:
 * a name with a letter or a digit that the user has not used for another project, and a git URL
 * a drone can clone (https, ssh, git or file URLs, {@code user@host:path}, or an absolute path
 * of a repository on the drone's machine).
 */
final class ProjectRules {
  private static final Pattern URL = Pattern.compile(
      "(?i)(https?|ssh|git)://[^\\s/]+(/\\S*)?|file://\\S+");
  private static final Pattern SCP = Pattern.compile("[\\w.-]+@[\\w.-]+:\\S+");
  private static final Pattern PATH = Pattern.compile("(/|~/|[A-Za-z]:[\\\\/])\\S*");
  private static final Pattern HAS_WORD = Pattern.compile("[\\p{L}\\p{N}]");

  private ProjectRules() {}

  /** Throws {@link RequestException} saying what to change; returns the trimmed name. */
  static String check(String name, String gitUrl, List<Project> existing) {
    String n = checkName(name, existing);
    String u = gitUrl.strip();
    if (!(URL.matcher(u).matches() || SCP.matcher(u).matches() || PATH.matcher(u).matches())) {
      throw new RequestException("\"" + shorten(u) + "\" is not a git URL or a path: use "
          + "https://host/owner/repo.git, git@host:owner/repo.git, or the absolute path of a "
          + "repository on the drone's machine");
    }
    return n;
  }

  /** The name's rules alone (for a rename): returns it trimmed. */
  static String checkName(String name, List<Project> existing) {
    String n = name.strip();
    if (!HAS_WORD.matcher(n).find()) {
      throw new RequestException("a project's name needs at least one letter or digit");
    }
    for (Project p : existing) {
      if (p.name().strip().toLowerCase(Locale.ROOT).equals(n.toLowerCase(Locale.ROOT))) {
        throw new RequestException("you already have a project named \"" + p.name()
            + "\": choose another name");
      }
    }
    return n;
  }

  private static String shorten(String s) {
    return s.length() <= 60 ? s : s.substring(0, 60) + "…";
  }
}
