package dev.gadget.core.agent.skills;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A {@code SKILL.md} read: its front matter's {@code name} and {@code description} and its body,
 * with what is wrong with it in words. Reads the YAML front matter that skills use (top-level
 * {@code key: value} lines; plain, single- and double-quoted values; {@code >} and {@code |} block
 * values; nested maps and lists such as {@code metadata}, skipped) without a YAML library. Pure.
 *
 * @param name the {@code name}, or {@code null} when unusable
 * @param description the {@code description} (cut at {@link #MAX_DESCRIPTION}), or {@code null}
 * @param body the Markdown after the front matter, stripped
 * @param metadata the {@code metadata} map's plain {@code key: value} entries
 * @param problems what is wrong, in words, each a sentence
 */
public record SkillFile(String name, String description, String body,
    Map<String, String> metadata, List<String> problems) {
  /** The file's name in a skill's folder. */
  public static final String NAME = "SKILL.md";
  /** The longest name the standard allows. */
  public static final int MAX_NAME = 64;
  /** The longest description the standard allows; longer ones are cut. */
  public static final int MAX_DESCRIPTION = 1024;
  private static final Pattern NAME_RULE = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_-]+");
  private static final String METADATA = "metadata.";

  public SkillFile {
    metadata = Map.copyOf(metadata);
    problems = List.copyOf(problems);
  }

  /** Whether the skill can be offered: it has a name and a description. */
  public boolean usable() {
    return name != null && description != null;
  }

  /**
   * Reads {@code text}, the {@code SKILL.md} of the folder {@code folderName}. Never throws: a
   * file that cannot be used says why in {@link #problems()} and is not {@link #usable()}.
   */
  public static SkillFile parse(String text, String folderName) {
    String t = text.replace("\r\n", "\n").replace('\r', '\n');
    if (t.startsWith("\uFEFF")) {
      t = t.substring(1);
    }
    List<String> problems = new ArrayList<>();
    if (!t.startsWith("---\n")) {
      problems.add("it does not begin with a front matter block (a --- line, then name: and "
          + "description: lines, then a --- line)");
      return new SkillFile(null, null, t.strip(), Map.of(), problems);
    }
    int end = t.indexOf("\n---\n", 3);
    int bodyAt = end + 5;
    if (end < 0 && t.endsWith("\n---")) {
      end = t.length() - 4;
      bodyAt = t.length();
    }
    if (end < 0) {
      problems.add("its front matter has no closing --- line");
      return new SkillFile(null, null, "", Map.of(), problems);
    }
    String[] lines = t.substring(4, end + 1).split("\n", -1);
    Map<String, String> fields;
    try {
      fields = fields(lines);
    } catch (IllegalArgumentException e) {
      problems.add("its front matter is not valid YAML: " + e.getMessage());
      return new SkillFile(null, null, t.substring(bodyAt).strip(), Map.of(), problems);
    }
    String name = fields.get("name");
    String description = fields.get("description");
    if (name == null || name.isBlank()) {
      problems.add("its front matter has no name");
      name = null;
    } else {
      name = name.strip();
      if (name.length() > MAX_NAME || !NAME_RULE.matcher(name).matches()) {
        problems.add("its name \"" + name + "\" is not 1 to " + MAX_NAME + " lowercase "
            + "letters, digits and single hyphens (used as it is)");
      }
      if (folderName != null && !name.equals(folderName)) {
        problems.add("its name \"" + name + "\" is not its folder's name \"" + folderName
            + "\" (used as it is)");
      }
    }
    if (description == null || description.isBlank()) {
      problems.add("its front matter has no description");
      description = null;
    } else {
      description = description.strip();
      if (description.length() > MAX_DESCRIPTION) {
        problems.add("its description has " + description.length() + " characters, over "
            + MAX_DESCRIPTION + " (cut there)");
        description = description.substring(0, MAX_DESCRIPTION);
      }
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    fields.forEach((k, v) -> {
      if (k.startsWith(METADATA) && v != null) {
        metadata.put(k.substring(METADATA.length()), v);
      }
    });
    return new SkillFile(name, description, t.substring(bodyAt).strip(), metadata, problems);
  }

  /** The top-level scalar fields of front matter {@code lines}; nested values are skipped. */
  private static Map<String, String> fields(String[] lines) {
    Map<String, String> out = new LinkedHashMap<>();
    int i = 0;
    while (i < lines.length) {
      String line = lines[i];
      if (line.isBlank() || line.startsWith("#")) {
        i++;
        continue;
      }
      if (Character.isWhitespace(line.charAt(0)) || line.startsWith("- ")) {
        throw new IllegalArgumentException("line " + (i + 1) + " is indented where a key was "
            + "expected");
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || !KEY.matcher(line.substring(0, colon)).matches()
          || (colon + 1 < line.length() && line.charAt(colon + 1) != ' ')) {
        throw new IllegalArgumentException("line " + (i + 1) + " is not \"key: value\": "
            + quoteLine(line));
      }
      String key = line.substring(0, colon);
      if (out.containsKey(key)) {
        throw new IllegalArgumentException("\"" + key + "\" is given twice");
      }
      String value = line.substring(colon + 1).strip();
      int next = i + 1;
      List<String> nested = new ArrayList<>();
      while (next < lines.length && (lines[next].isBlank()
          || Character.isWhitespace(lines[next].charAt(0)))) {
        nested.add(lines[next]);
        next++;
      }
      if (value.isEmpty() && key.equals("metadata")) {
        for (String n : nested) {
          String m = n.strip();
          int c = m.indexOf(':');
          if (c > 0 && !m.startsWith("-") && !m.startsWith("#")) {
            out.put(METADATA + m.substring(0, c).strip(),
                value(m.substring(c + 1).strip(), List.of(), i + 1));
          }
        }
      }
      out.put(key, value(value, nested, i + 1));
      i = next;
    }
    return out;
  }

  /** A key's value from its line's rest and the indented lines after it ({@code null}: a map). */
  private static String value(String value, List<String> nested, int lineNo) {
    if (value.startsWith(">") || value.startsWith("|")) {
      return block(value.charAt(0) == '>', nested);
    }
    if (value.startsWith("\"")) {
      return doubleQuoted(joined(value, nested), lineNo);
    }
    if (value.startsWith("'")) {
      return singleQuoted(joined(value, nested), lineNo);
    }
    if (value.isEmpty()) {
      return null; // a nested map or list, such as metadata
    }
    String plain = joined(value, nested);
    int comment = plain.indexOf(" #");
    return comment < 0 ? plain : plain.substring(0, comment).strip();
  }

  /** A plain or quoted value continued on indented lines: folded into one line. */
  private static String joined(String first, List<String> more) {
    StringBuilder sb = new StringBuilder(first);
    for (String m : more) {
      if (!m.isBlank()) {
        sb.append(' ').append(m.strip());
      }
    }
    return sb.toString();
  }

  /** A {@code >} (folded) or {@code |} (literal) block: its indented lines. */
  private static String block(boolean folded, List<String> lines) {
    int indent = Integer.MAX_VALUE;
    for (String l : lines) {
      if (!l.isBlank()) {
        indent = Math.min(indent, l.length() - l.stripLeading().length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String l : lines) {
      String s = l.isBlank() ? "" : l.substring(Math.min(indent, l.length()));
      if (sb.length() > 0) {
        sb.append(folded && !s.isEmpty() && sb.charAt(sb.length() - 1) != '\n' ? " " : "\n");
      }
      sb.append(s);
    }
    return sb.toString().strip();
  }

  private static String doubleQuoted(String v, int lineNo) {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '"') {
        return closed(sb, v.substring(i + 1), lineNo);
      }
      if (c == '\\' && i + 1 < v.length()) {
        char e = v.charAt(++i);
        sb.append(e == 'n' ? '\n' : e == 't' ? '\t' : e);
      } else {
        sb.append(c);
      }
    }
    throw new IllegalArgumentException("the quoted value on line " + lineNo + " is not closed");
  }

  private static String singleQuoted(String v, int lineNo) {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '\'' && i + 1 < v.length() && v.charAt(i + 1) == '\'') {
        sb.append('\'');
        i++;
      } else if (c == '\'') {
        return closed(sb, v.substring(i + 1), lineNo);
      } else {
        sb.append(c);
      }
    }
    throw new IllegalArgumentException("the quoted value on line " + lineNo + " is not closed");
  }

  /** A quoted value, when what follows its closing quote ({@code rest}) is nothing or a comment. */
  private static String closed(StringBuilder value, String rest, int lineNo) {
    if (!rest.isBlank() && !rest.stripLeading().startsWith("#")) {
      throw new IllegalArgumentException("line " + lineNo + " has text after its quoted value");
    }
    return value.toString();
  }

  private static String quoteLine(String line) {
    return "\"" + (line.length() > 60 ? line.substring(0, 60) + "…" : line) + "\"";
  }
}
