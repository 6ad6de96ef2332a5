package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArgsTest {
  static final List<OptionSpec> SPECS = List.of(
      OptionSpec.value("port", "PORT", "a port"),
      OptionSpec.value("data-dir", "DIR", "a directory"),
      OptionSpec.flag("keep", "a flag"));

  static Args parse(String... argv) {
    return Args.parse(SPECS, List.of(argv));
  }

  @Test
  void valuesFlagsAndPositionals() {
    Args a = parse("add", "--port", "80", "--data-dir=/x y", "--keep", "bob");
    assertThat(a.positional()).containsExactly("add", "bob");
    assertThat(a.port("port", 1)).isEqualTo(80);
    assertThat(a.get("data-dir")).contains("/x y");
    assertThat(a.flag("keep")).isTrue();
    assertThat(a.help()).isFalse();
    assertThat(a.get("missing", "fallback")).isEqualTo("fallback");
  }

  @Test
  void doubleDashEndsOptions() {
    Args a = parse("--keep", "--", "--port", "-h");
    assertThat(a.positional()).containsExactly("--port", "-h");
    assertThat(a.get("port")).isEmpty();
    assertThat(a.help()).isFalse();
  }

  @Test
  void helpIsAlwaysAccepted() {
    assertThat(parse("--help").help()).isTrue();
    assertThat(parse("-h").help()).isTrue();
  }

  @Test
  void aLoneDashIsPositional() {
    assertThat(parse("-").positional()).containsExactly("-");
  }

  @Test
  void mistakesAreExplained() {
    assertThatThrownBy(() -> parse("--nope")).isInstanceOf(UsageException.class)
        .hasMessage("unknown option --nope");
    assertThatThrownBy(() -> parse("-p")).isInstanceOf(UsageException.class)
        .hasMessageContaining("unknown option -p");
    assertThatThrownBy(() -> parse("--port")).isInstanceOf(UsageException.class)
        .hasMessage("--port needs a value (PORT)");
    assertThatThrownBy(() -> parse("--keep=yes")).isInstanceOf(UsageException.class)
        .hasMessage("--keep takes no value");
    assertThatThrownBy(() -> parse("--port", "1", "--port=2")).isInstanceOf(UsageException.class)
        .hasMessage("--port is given twice");
  }

  @Test
  void secondsAreCheckedAndMayHaveDecimals() {
    java.time.Duration fallback = java.time.Duration.ofSeconds(7);
    assertThat(parse().seconds("port", fallback)).isEqualTo(fallback);
    assertThat(parse("--port", "30").seconds("port", fallback)).hasSeconds(30);
    assertThat(parse("--port", "0.25").seconds("port", fallback)).hasMillis(250);
    for (String bad : List.of("0", "-1", "1e3", "abc", "86401", "NaN", "Infinity")) {
      assertThatThrownBy(() -> parse("--port", bad).seconds("port", fallback)).as(bad)
          .isInstanceOf(UsageException.class)
          .hasMessage("--port must be a number of seconds above 0 and at most 86400 (a day), "
              + "not '" + bad + "'");
    }
  }

  @Test
  void portsAreChecked() {
    assertThat(parse("--port", "0").port("port", 5)).isZero();
    assertThat(parse().port("port", 5)).isEqualTo(5);
    assertThatThrownBy(() -> parse("--port", "65536").port("port", 1))
        .isInstanceOf(UsageException.class)
        .hasMessage("--port must be a port number from 0 to 65535, not '65536'");
    assertThatThrownBy(() -> parse("--port", "http").port("port", 1))
        .isInstanceOf(UsageException.class);
  }

  @Test
  void suggestedCommandsNameTheJarAsSeenFromTheWorkingDirectory() {
    Path root = Path.of("/home/ann/gadget");
    Path jar = root.resolve("gadget-examples/target/gadget.jar");
    assertThat(Main.command(jar, root))
        .isEqualTo("java -jar gadget-examples/target/gadget.jar");
    assertThat(Main.command(jar, jar.getParent()))
        .isEqualTo("java -jar gadget.jar");
    assertThat(Main.command(jar, Path.of("/tmp")))
        .isEqualTo("java -jar /home/ann/gadget/gadget-examples/target/gadget.jar");
    assertThat(
        Main.command(Path.of("/my jars/gadget.jar"), root))
        .isEqualTo("java -jar '/my jars/gadget.jar'");
    assertThat(Main.command(null, root))
        .isEqualTo("java -jar gadget.jar");
  }
}
