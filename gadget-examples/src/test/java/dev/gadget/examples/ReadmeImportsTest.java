package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of README.md says where its types come from: it starts with its imports,
 * or follows a block of them, every import names a real class, and every type it uses is
 * imported (or is {@code java.lang}'s, or a placeholder named {@code My...}).
 */
class ReadmeImportsTest {
  private static final Pattern JAVA_BLOCK = Pattern.compile("(?s)```java\n(.*?)```\n");
  private static final Pattern IMPORT = Pattern.compile("(?m)^import ([\\w.]+);.*$");
  private static final Pattern TYPE_USE =
      Pattern.compile("(?<![.\\w])([A-Z][A-Za-z0-9]*)(?=\\s*[.<(]|\\s+[a-z]\\w*\\s*[=;)]|\\s*\\{)");

  private record Snippet(String code, Set<String> imported) {}

  private static List<Snippet> snippets() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    List<Snippet> out = new ArrayList<>();
    Matcher m = JAVA_BLOCK.matcher(readme);
    Set<String> pending = null;
    int lastEnd = -1;
    while (m.find()) {
      String code = m.group(1);
      Set<String> imports = new HashSet<>();
      Matcher i = IMPORT.matcher(code);
      while (i.find()) {
        imports.add(i.group(1));
      }
      String rest = IMPORT.matcher(code).replaceAll("").strip();
      String between = lastEnd < 0 ? "" : readme.substring(lastEnd, m.start()).strip();
      if (rest.isEmpty()) {
        pending = imports; // an imports-only block: it belongs to the next block
      } else {
        if (imports.isEmpty()) {
          assertThat(pending).as("imports for the README snippet starting %s",
              rest.lines().findFirst().orElse("")).isNotNull();
          assertThat(between).as("only a marker comment between imports and code")
              .matches("(<!--.*-->)?");
          imports = pending;
        }
        out.add(new Snippet(rest, imports));
        pending = null;
      }
      lastEnd = m.end();
    }
    return out;
  }

  private static boolean exists(String name) {
    String n = name;
    while (true) {
      try {
        Class.forName(n, false, ReadmeImportsTest.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException e) {
        int dot = n.lastIndexOf('.');
        if (dot < 0) {
          return false;
        }
        n = n.substring(0, dot) + "$" + n.substring(dot + 1); // a nested type
      }
    }
  }

  @Test
  void everyJavaSnippetImportsWhatItUses() throws Exception {
    List<Snippet> snippets = snippets();
    assertThat(snippets).hasSizeGreaterThanOrEqualTo(7);
    for (Snippet s : snippets) {
      for (String imp : s.imported()) {
        assertThat(exists(imp)).as("README imports a class that exists: " + imp).isTrue();
      }
      Set<String> simpleNames = new HashSet<>();
      s.imported().forEach(i -> simpleNames.add(i.substring(i.lastIndexOf('.') + 1)));
      String code = s.code().replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"")
          .replaceAll("//[^\n]*", "");
      Matcher t = TYPE_USE.matcher(code);
      while (t.find()) {
        String type = t.group(1);
        if (simpleNames.contains(type) || type.startsWith("My") || exists("java.lang." + type)
            || code.contains("class " + type)) {
          continue;
        }
        throw new AssertionError("the README snippet starting '"
            + code.lines().findFirst().orElse("") + "' uses " + type + " without importing it");
      }
    }
  }
}
