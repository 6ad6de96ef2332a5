package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's test command works on a fresh machine: it is the script that installs what the
 * tests need, {@code .ci/run} calls exactly it, and without Chromium the browser tests fail at
 * once with one line naming it.
 */
class TestCommandTest {
  static final Path ROOT = Path.of("..");
  @TempDir Path tmp;

  /** The README's first code block: the demo's command, then the tests'. */
  static List<String> readmeCommands() throws Exception {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int start = readme.indexOf("```bash\n") + 8;
    String block = readme.substring(start, readme.indexOf("```", start));
    return block.lines().map(l -> l.replaceAll("\\s+#.*$", "").strip())
        .filter(l -> !l.isEmpty()).toList();
  }

  @Test
  void ciRunsExactlyTheReadmesTestCommandWhichInstallsChromiumThenVerifies() throws Exception {
    List<String> commands = readmeCommands();
    assertThat(commands).hasSize(2);
    String tests = commands.get(1);
    assertThat(tests).isEqualTo("./test.sh").isEqualTo(BrowserHarness.INSTALL_AND_TEST);
    List<String> ci = Files.readAllLines(ROOT.resolve(".ci/run")).stream().map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.startsWith("set ")
            && !l.startsWith("cd "))
        .toList();
    assertThat(ci).containsExactly(tests);
    Path script = ROOT.resolve(tests);
    assertThat(Files.isExecutable(script)).isTrue();
    String text = Files.readString(script);
    assertThat(text).contains("apt-get install -y -q chromium", "GADGET_CHROMIUM",
        "command -v chromium ", "command -v chromium-browser");
    assertThat(text).contains("\n./mvnw -B verify \"$@\"\n");
    assertThat(text.strip()).endsWith("exec scripts/release-check");
  }

  @Test
  void withoutChromiumTheBrowserTestsFailAtOnceNamingTheCommandThatInstallsIt() {
    Map<String, String> fresh = Map.of("PATH", tmp.toString());
    assertThatThrownBy(() -> BrowserHarness.chromium(fresh))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("need Chromium and found none")
        .hasMessageContaining("run ./test.sh, which installs it")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> BrowserHarness.chromium(Map.of("GADGET_CHROMIUM",
        tmp.resolve("nothing-here").toString())))
        .hasMessageContaining("GADGET_CHROMIUM=" + tmp.resolve("nothing-here")
            + " is not an executable file");
  }

  @Test
  void chromiumIsFoundOnThePathUnderEitherNameOrThroughGadgetChromium() throws Exception {
    Path a = Files.createDirectories(tmp.resolve("a"));
    Path b = Files.createDirectories(tmp.resolve("b"));
    Path browser = executable(b.resolve("chromium-browser"));
    Files.writeString(a.resolve("chromium"), "not executable");
    String path = a + java.io.File.pathSeparator + b;
    assertThat(BrowserHarness.chromium(Map.of("PATH", path))).isEqualTo(browser);
    Path chromium = executable(a.resolve("chromium"));
    assertThat(BrowserHarness.chromium(Map.of("PATH", path))).isEqualTo(chromium);
    Path chrome = executable(tmp.resolve("chrome"));
    assertThat(BrowserHarness.chromium(Map.of("PATH", path, "GADGET_CHROMIUM",
        chrome.toString()))).isEqualTo(chrome);
  }

  private static Path executable(Path p) throws Exception {
    Files.writeString(p, "#!/bin/sh\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }
}
