package dev.gadget.core.drone;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Git's complaints, told in people's words, never with credentials from a URL. */
final class GitErrors {
  private static final Pattern FAILED_AT = Pattern.compile(
      "(?m)^error: (?:patch failed: (.+?):\\d+|(.+?): (?:does not exist in index|No such file "
          + "or directory|already exists in working directory|does not match index|patch does "
          + "not apply|file exists))");

  private GitErrors() {}

  /** {@code text} without the user and password in any URL in it. */
  static String withoutCredentials(String text) {
    return text.replaceAll("([A-Za-z][A-Za-z0-9+.-]*://)[^/@\\s]*@", "$1");
  }

  /** The files {@code git apply}'s errors name, as "a.txt and b.txt", or "some files". */
  static String changedSince(String applyErrors) {
    Set<String> files = new LinkedHashSet<>();
    Matcher m = FAILED_AT.matcher(applyErrors);
    while (m.find()) {
      files.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    if (files.isEmpty()) {
      return "some files";
    }
    String[] names = files.toArray(String[]::new);
    if (names.length == 1) {
      return names[0];
    }
    return String.join(", ", java.util.Arrays.copyOf(names, names.length - 1)) + " and "
        + names[names.length - 1];
  }

  /** Why {@code git push} of {@code branch} to {@code remote} failed, for people. */
  static String push(String remote, String branch, String said) {
    String s = withoutCredentials(said);
    String lower = s.toLowerCase(Locale.ROOT);
    String where = withoutCredentials(remote);
    String because;
    if (lower.contains("non-fast-forward") || lower.contains("fetch first")
        || lower.contains("[rejected]")) {
      because = "the remote's branch " + branch + " has commits this one does not have; "
          + "push to another branch, or bring those commits in first";
    } else if (lower.contains("authentication failed") || lower.contains("could not read username")
        || lower.contains("permission denied") || lower.contains("403")
        || lower.contains("terminal prompts disabled")) {
      because = "the drone's git credentials may not push to " + where;
    } else if (lower.contains("could not resolve host") || lower.contains("connection refused")
        || lower.contains("unable to access") || lower.contains("timed out")) {
      because = "the drone cannot reach " + where;
    } else if (lower.contains("does not appear to be a git repository")
        || lower.contains("no such remote") || lower.contains("not found")) {
      because = where + " is not a git remote the drone knows";
    } else if (lower.contains("pre-receive hook declined") || lower.contains("protected branch")) {
      because = "the remote refused the branch (a hook or a branch protection rule)";
    } else {
      because = "git push failed";
    }
    String said1 = telling(s);
    return "cannot push " + branch + ": " + because + (said1.isEmpty() ? "" : " (git said: "
        + said1 + ")");
  }

  /**
   * The line of git's output that says what happened: a rejection ({@code ! [rejected] …}) when
   * there is one, else its last line that is not a {@code hint:}.
   */
  static String telling(String said) {
    List<String> lines = said.lines().map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("hint:")).toList();
    return lines.stream().filter(l -> l.contains("[rejected]") || l.contains("[remote rejected]"))
        .findFirst().orElse(lines.isEmpty() ? "" : lines.get(lines.size() - 1));
  }
}
