package dev.gadget.bench.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.catalog.HttpToolEmbedder;
import dev.gadget.core.agent.catalog.SemanticToolIndex;
import dev.gadget.core.agent.catalog.ToolCatalog;
import dev.gadget.core.agent.catalog.ToolEmbedder.EmbeddingException;
import dev.gadget.core.agent.catalog.ToolMatch;
import dev.gadget.core.llm.ToolDefinition;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local embedding server with a real model (all-MiniLM-L6-v2, quantized, in-process) on
 * 127.0.0.1, asked by Gadget's own {@link HttpToolEmbedder} in both wire formats and by a plain
 * HTTP client for what a client should never send.
 */
class LocalEmbeddingServerTest {
  private static LocalEmbeddingServer server;

  @BeforeAll
  static void start() throws Exception {
    server = LocalEmbeddingServer.start(LocalModel.MINILM, 0);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static ToolDefinition tool(String name, String description) {
    return new ToolDefinition(name, description, GadgetJson.mapper().createObjectNode());
  }

  private static double cosine(float[] a, float[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    return dot / Math.sqrt(na * nb);
  }

  @Test
  void answersBothWireFormatsWithTheSameVectorsOfMeaning() {
    HttpToolEmbedder openAi = HttpToolEmbedder.openAi(server.baseUrl(), LocalModel.MINILM.id(),
        null);
    HttpToolEmbedder ollama = HttpToolEmbedder.ollama(server.baseUrl(), LocalModel.MINILM.id());
    List<String> texts = List.of("how tall is Mont Blanc",
        "maps elevation: Get the elevation of locations on the earth",
        "fs read file: Read the contents of a file");
    long before = server.requests();
    List<float[]> a = openAi.embed(texts);
    List<float[]> b = ollama.embed(texts);
    assertThat(server.requests() - before).isEqualTo(2);
    assertThat(a).hasSize(3).allSatisfy(v -> assertThat(v).hasSize(384));
    for (int i = 0; i < 3; i++) {
      assertThat(cosine(a.get(i), b.get(i))).isGreaterThan(0.9999);
    }
    // no word in common, yet the mountain is nearer the elevation than the file
    assertThat(cosine(a.get(0), a.get(1))).isGreaterThan(cosine(a.get(0), a.get(2)) + 0.1);
  }

  @Test
  void gadgetsSemanticSearchFindsByMeaningAndEmbedsACatalogOnce() {
    List<ToolDefinition> tools = List.of(
        tool("maps__maps_elevation", "Get the elevation of locations on the earth"),
        tool("fs__read_file", "Read the contents of a file"),
        tool("github__create_issue", "Create a new issue in a GitHub repository"));
    SemanticToolIndex index = new SemanticToolIndex(HttpToolEmbedder.openAi(server.baseUrl(),
        LocalModel.MINILM.id(), null));
    long before = server.requests();
    assertThat(ToolCatalog.of(tools).search("how tall is Mont Blanc", 1)).isEmpty();
    List<ToolMatch> found = ToolCatalog.of(tools, index).search("how tall is Mont Blanc", 1);
    assertThat(found).extracting(ToolMatch::name).containsExactly("maps__maps_elevation");
    assertThat(server.requests() - before).isEqualTo(2); // the three tools, then the query
    ToolCatalog.of(tools, index).search("report a bug", 1); // a later turn: only its query
    assertThat(server.requests() - before).isEqualTo(3);
    assertThat(index.embeddedTexts()).isEqualTo(3);
  }

  @Test
  void badRequestsAreAnsweredInWordsAndTheServerGoesOn() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String[][] cases = {
        {"not json", "400", "the request body is not JSON"},
        {"{\"model\":\"all-minilm-l6-v2-q\",\"input\":[1,2]}", "400",
            "\"input\" must hold only strings"},
        {"{\"model\":\"all-minilm-l6-v2-q\",\"input\":[]}", "400",
            "\"input\" must hold 1 to 512 texts; got 0"},
        {"{\"model\":\"nomic-embed-text\",\"input\":\"hi\"}", "404",
            "model \"nomic-embed-text\" is not served here; this server serves "
                + "\"all-minilm-l6-v2-q\""},
    };
    for (String[] c : cases) {
      HttpResponse<String> res = http.send(HttpRequest.newBuilder(
              URI.create(server.baseUrl() + "/v1/embeddings"))
          .timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofString(c[0])).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(res.statusCode()).as(c[0]).isEqualTo(Integer.parseInt(c[1]));
      assertThat(GadgetJson.mapper().readTree(res.body()).path("error").path("message")
          .asText()).isEqualTo(c[2]);
    }
    byte[] huge = new byte[LocalEmbeddingServer.MAX_BODY_BYTES + 10];
    java.util.Arrays.fill(huge, (byte) ' ');
    HttpResponse<String> tooLarge = http.send(HttpRequest.newBuilder(
            URI.create(server.baseUrl() + "/api/embed")).timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofByteArray(huge)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(tooLarge.statusCode()).isEqualTo(413);
    assertThat(tooLarge.body()).contains("the request is larger than 4 MB");
    // Gadget's client tells its user what the server said
    assertThatThrownBy(() -> HttpToolEmbedder.ollama(server.baseUrl(), "nomic-embed-text")
        .embed(List.of("hello")))
        .isInstanceOf(EmbeddingException.class)
        .hasMessageContaining("answered HTTP 404")
        .hasMessageContaining("is not served here");
    // and it still serves
    assertThat(HttpToolEmbedder.ollama(server.baseUrl(), LocalModel.MINILM.id())
        .embed(List.of("hello")).get(0)).hasSize(384);
  }

  @Test
  void anUnknownModelIsNamedWithTheOnesThereAre() {
    assertThatThrownBy(() -> LocalModel.of("nomic-embed-text"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no local embedding model \"nomic-embed-text\"; there are "
            + "all-minilm-l6-v2-q, bge-small-en-v1.5-q");
  }
}
