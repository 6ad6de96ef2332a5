package dev.gadget.core.agent.catalog;

import static dev.gadget.core.agent.catalog.ToolCatalogTest.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Semantic tool search against a real HTTP server on 127.0.0.1 replaying embedding answers in
 * the wire formats of Ollama's {@code /api/embed} and OpenAI's {@code /v1/embeddings}. No
 * embedding model runs here, so the vectors are made up: three directions (places, files,
 * GitHub), which is all ranking by meaning needs to be tested.
 */
class SemanticToolSearchTest {
  static final List<ToolDefinition> TOOLS = List.of(
      tool("maps__maps_elevation", "Get the elevation of locations on the earth", "{}"),
      tool("fs__read_file", "Read the contents of a file", "{\"type\":\"object\","
          + "\"properties\":{\"path\":{\"type\":\"string\"}}}"),
      tool("github__create_issue", "Create a new issue in a GitHub repository", "{}"));
  static final String PLACES = "[0.9,0.1,0.0]";
  static final String FILES = "[0.05,1.0,0.1]";
  static final String GITHUB = "[0.0,0.1,1.0]";

  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void close() {
    server.close();
  }

  static String ollama(String... vectors) {
    return "{\"model\":\"nomic-embed-text\",\"embeddings\":[" + String.join(",", vectors)
        + "],\"total_duration\":14143917,\"load_duration\":1019500,\"prompt_eval_count\":"
        + 8 * vectors.length + "}";
  }

  @Test
  void findsByMeaningWhatNoWordOfTheQueryNames() {
    SemanticToolIndex index = new SemanticToolIndex(
        HttpToolEmbedder.ollama(server.url(), "nomic-embed-text"));
    ToolCatalog catalog = ToolCatalog.of(TOOLS, index);
    assertThat(catalog.semantic()).isTrue();
    assertThat(ToolCatalog.of(TOOLS).semantic()).isFalse();
    // the loop's catalog has the embeddings its builder was given
    dev.gadget.core.agent.AgentLoop.Builder loop = dev.gadget.core.agent.AgentLoop.builder()
        .llmClient(dev.gadget.core.llm.ScriptedLlmClient.of());
    assertThat(loop.build().toolCatalog().semantic()).isFalse();
    assertThat(loop.toolEmbeddings(index).build().toolCatalog().semantic()).isTrue();
    // lexically, "tall" and "Mont Blanc" are in no tool
    assertThat(ToolCatalog.of(TOOLS).search("how tall is Mont Blanc", 3)).isEmpty();
    server.enqueue(ollama(PLACES, FILES, GITHUB));
    server.enqueue(ollama("[1.0,0.0,0.0]"));
    List<ToolMatch> found = catalog.search("how tall is Mont Blanc", 1);
    assertThat(found).extracting(ToolMatch::name).containsExactly("maps__maps_elevation");
    assertThat(found.get(0).similarity()).isGreaterThan(0.9);

    LlmTestServer.Recorded tools = server.takeRequest();
    assertThat(tools.path()).isEqualTo("/api/embed");
    assertThat(tools.json().path("model").asText()).isEqualTo("nomic-embed-text");
    assertThat(tools.json().path("input").get(1).asText())
        .isEqualTo("fs read file: Read the contents of a file (path)");
    assertThat(server.takeRequest().json().path("input").get(0).asText())
        .isEqualTo("how tall is Mont Blanc");
    assertThat(index.embeddedTexts()).isEqualTo(3);
  }

  @Test
  void aDefinitionIsEmbeddedOnceAcrossCatalogsAndAgainWhenItChanges() {
    SemanticToolIndex index = new SemanticToolIndex(
        HttpToolEmbedder.ollama(server.url(), "nomic-embed-text"));
    server.enqueue(ollama(PLACES, FILES, GITHUB));
    server.enqueue(ollama(FILES));
    assertThat(ToolCatalog.of(TOOLS, index).search("show me what is in notes.txt", 1))
        .extracting(ToolMatch::name).containsExactly("fs__read_file");
    server.takeRequest();
    server.takeRequest();

    // the next turn's catalog: the same definitions, only the query is embedded
    server.enqueue(ollama(GITHUB));
    assertThat(ToolCatalog.of(TOOLS, index).search("report a crash upstream", 1))
        .extracting(ToolMatch::name).containsExactly("github__create_issue");
    assertThat(server.takeRequest().json().path("input")).hasSize(1);
    assertThat(index.embeddedTexts()).isEqualTo(3);

    // a changed description is another definition: it alone is embedded
    List<ToolDefinition> changed = List.of(TOOLS.get(0), TOOLS.get(1),
        tool("github__create_issue", "Open an issue in a GitHub repository", "{}"));
    server.enqueue(ollama(GITHUB));
    server.enqueue(ollama(GITHUB));
    ToolCatalog.of(changed, index).search("report a crash upstream", 1);
    assertThat(server.takeRequest().json().path("input").get(0).asText())
        .isEqualTo("github create issue: Open an issue in a GitHub repository");
    assertThat(index.embeddedTexts()).isEqualTo(4);
    assertThat(index.cached()).isEqualTo(4);
  }

  @Test
  void theCacheIsBounded() {
    SemanticToolIndex index = new SemanticToolIndex(
        HttpToolEmbedder.ollama(server.url(), "m"), 2);
    server.enqueue(ollama(PLACES, FILES, GITHUB));
    server.enqueue(ollama(FILES));
    ToolCatalog.of(TOOLS, index).search("contents", 1);
    assertThat(index.cached()).isEqualTo(2);
    assertThatThrownBy(() -> new SemanticToolIndex(HttpToolEmbedder.ollama(server.url(), "m"), 0))
        .hasMessageContaining("1 definition or more");
  }

  @Test
  void speaksOpenAiEmbeddingsWithItsKeyAndItsIndexes() {
    HttpToolEmbedder openAi = HttpToolEmbedder.openAi(server.v1(), "text-embedding-3-small",
        "sk-test-secret");
    assertThat(openAi.toString()).doesNotContain("sk-test-secret");
    server.enqueue("{\"object\":\"list\",\"data\":["
        + "{\"object\":\"embedding\",\"index\":2,\"embedding\":" + GITHUB + "},"
        + "{\"object\":\"embedding\",\"index\":0,\"embedding\":" + PLACES + "},"
        + "{\"object\":\"embedding\",\"index\":1,\"embedding\":" + FILES + "}],"
        + "\"model\":\"text-embedding-3-small\",\"usage\":{\"prompt_tokens\":30,"
        + "\"total_tokens\":30}}");
    server.enqueue("{\"object\":\"list\",\"data\":[{\"object\":\"embedding\",\"index\":0,"
        + "\"embedding\":[0.1,0.0,0.95]}],\"model\":\"text-embedding-3-small\"}");
    List<ToolMatch> found = ToolCatalog.of(TOOLS, new SemanticToolIndex(openAi))
        .search("tell the maintainers about a crash", 1);
    assertThat(found).extracting(ToolMatch::name).containsExactly("github__create_issue");
    LlmTestServer.Recorded r = server.takeRequest();
    assertThat(r.path()).isEqualTo("/v1/embeddings");
    assertThat(r.header("Authorization")).isEqualTo("Bearer sk-test-secret");
  }

  @Test
  void aFailingModelLeavesSearchLexicalAndIsNotAskedAgainByThatCatalog() {
    SemanticToolIndex index = new SemanticToolIndex(
        HttpToolEmbedder.ollama(server.url(), "nomic-embed-text"));
    server.enqueue(404, "{\"error\":\"model \\\"nomic-embed-text\\\" not found, try pulling it "
        + "first\"}");
    ToolCatalog catalog = ToolCatalog.of(TOOLS, index);
    assertThat(catalog.search("create an issue", 1)).extracting(ToolMatch::name)
        .containsExactly("github__create_issue");
    assertThat(catalog.search("read a file", 1)).extracting(ToolMatch::name)
        .containsExactly("fs__read_file");
    assertThat(server.requestCount()).isEqualTo(1);
    assertThat(index.cached()).isZero();
  }

  @Test
  void badAnswersAreErrorsInWords() {
    HttpToolEmbedder e = HttpToolEmbedder.ollama(server.url(), "m")
        .withTimeout(Duration.ofSeconds(5));
    server.enqueue(500, "{\"error\":\"out of memory\"}");
    assertThatThrownBy(() -> e.embed(List.of("x")))
        .isInstanceOf(ToolEmbedder.EmbeddingException.class)
        .hasMessageContaining("answered HTTP 500: {\"error\":\"out of memory\"}");
    server.enqueue("<html>proxy error</html>");
    assertThatThrownBy(() -> e.embed(List.of("x"))).hasMessageContaining("not JSON");
    server.enqueue(ollama(PLACES));
    assertThatThrownBy(() -> e.embed(List.of("x", "y")))
        .hasMessageContaining("1 vectors for 2 texts");
    server.enqueue(ollama("[1.0,2.0]", "[1.0]"));
    assertThatThrownBy(() -> e.embed(List.of("x", "y")))
        .hasMessageContaining("different lengths");
    server.enqueue(ollama("[1.0,\"two\"]"));
    assertThatThrownBy(() -> e.embed(List.of("x"))).hasMessageContaining("not a number");
    assertThatThrownBy(() -> HttpToolEmbedder.ollama(java.net.URI.create("ftp://x"), "m"))
        .hasMessageContaining("http(s)");
    assertThatThrownBy(() -> HttpToolEmbedder.ollama(server.url(), " "))
        .hasMessageContaining("needs a name");
    assertThat(String.format(Locale.ROOT, "%s", e)).contains("ollama", "/api/embed", "m");
  }
}
