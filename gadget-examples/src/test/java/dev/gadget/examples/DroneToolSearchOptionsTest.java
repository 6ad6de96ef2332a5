package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.catalog.SemanticToolIndex;
import dev.gadget.examples.CommandsFixture.Out;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gadget drone}'s tool options: --tool-search, the embedding model's, and --user-tools.
 */
class DroneToolSearchOptionsTest {
  @TempDir Path tmp;

  @Test
  void wrongOptionsAreRefusedInWordsBeforeAnythingStarts() {
    Map<List<String>, String> bad = Map.of(
        List.of("--tool-search", "lots"), "--tool-search: ",
        List.of("--embed-api", "cohere"), "--embed-api: ollama or openai, not 'cohere'",
        List.of("--embed-url", "http://127.0.0.1:11434"), "--embed-url needs --embed-model",
        List.of("--embed-model", "m", "--embed-url", "ftp://host"), "--embed-url: baseUrl must "
            + "be an absolute http(s) URL: ftp://host",
        List.of("--user-tools", "/nonexistent-gadget-lib"), "--user-tools: "
            + "/nonexistent-gadget-lib is not a directory");
    bad.forEach((options, said) -> {
      Out o = new Out();
      List<String> argv = new ArrayList<>(List.of("drone", "--workspace",
          tmp.resolve("ws").toString()));
      argv.addAll(options);
      assertThat(Main.run(argv, o.console(Map.of("GADGET_DRONE_TOKEN", "gdt_x")), false))
          .as(options.toString()).isEqualTo(2);
      assertThat(o.err()).as(options.toString()).contains(said).doesNotContain("Exception");
    });
    assertThat(tmp.resolve("ws")).as("nothing is created").doesNotExist();
  }

  @Test
  void anEmbeddingModelIsOnlyThereWhenNamedAndItsKeyStaysOutOfSight() {
    Out o = new Out();
    assertThat(DroneCommand.embeddings(args(), o.console(Map.of()))).isNull();
    SemanticToolIndex ollama = DroneCommand.embeddings(args("--embed-model", "nomic-embed-text"),
        o.console(Map.of()));
    assertThat(ollama.model()).isEqualTo("nomic-embed-text");
    assertThat(ollama.toString()).contains("nomic-embed-text");
    SemanticToolIndex openAi = DroneCommand.embeddings(args("--embed-model",
        "text-embedding-3-small", "--embed-api", "openai", "--embed-url",
        "http://127.0.0.1:8080/v1"), o.console(Map.of("GADGET_EMBED_API_KEY", "sk-secret")));
    assertThat(openAi.model()).isEqualTo("text-embedding-3-small");
    assertThat(openAi.toString()).doesNotContain("sk-secret");
  }

  @Test
  void helpSaysHowToTuneIt() {
    Out help = new Out();
    Main.run(List.of("drone", "--help"), help.console(Map.of()), false);
    assertThat(help.out()).contains("--tool-search WHEN", "--embed-model NAME", "--embed-url URL",
        "--embed-api API", "--tool-examples", "how many deferred", "To tune");
  }

  @Test
  void toolExamplesAreKeptInTheWorkspacesOwnFolderOnlyWhenAskedFor() throws Exception {
    Path ws = tmp.resolve("ws");
    assertThat(DroneCommand.toolExamples(args(), ws)).isNull();
    assertThat(ws).doesNotExist();
    Path kept = DroneCommand.toolExamples(args("--tool-examples"), ws);
    assertThat(kept).isEqualTo(ws.resolve(".gadget").resolve("tool-examples")).isDirectory();
    java.nio.file.Files.writeString(tmp.resolve("file"), "x");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DroneCommand.toolExamples(
        args("--tool-examples"), tmp.resolve("file"))).hasMessageStartingWith(
        "--tool-examples: cannot make ");
  }

  @Test
  void theUsersLibraryOfToolsIsHomesByDefaultOneFolderOrNone() throws Exception {
    assertThat(DroneCommand.userTools(args())).isEqualTo(
        Path.of(System.getProperty("user.home"), ".agents", "tools"));
    assertThat(DroneCommand.userTools(args("--user-tools", "none"))).isNull();
    Path lib = java.nio.file.Files.createDirectories(tmp.resolve("lib"));
    assertThat(DroneCommand.userTools(args("--user-tools", lib.toString()))).isEqualTo(lib);
    String two = lib + java.io.File.pathSeparator + lib;
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DroneCommand.userTools(
        args("--user-tools", two))).hasMessage("--user-tools: one folder, not 2");
  }

  private static Args args(String... argv) {
    return Args.parse(new DroneCommand().options(), List.of(argv));
  }
}
