package dev.gadget.bench.embed;

import dev.gadget.core.agent.catalog.HttpToolEmbedder;
import dev.gadget.core.agent.catalog.SemanticSearchBenchmark;
import java.util.ArrayList;
import java.util.List;

/**
 * What embeddings add to {@code search_tools}, measured with real local models (a program, not a
 * test): for each model, a {@link LocalEmbeddingServer} on 127.0.0.1 and gadget-core's
 * {@link SemanticSearchBenchmark} over Gadget's own {@link HttpToolEmbedder}, the client a user
 * with Ollama or an OpenAI-compatible server gets.
 *
 * <pre>
 * ./mvnw -B -o -q -pl gadget-bench-embed -am test-compile -Pembed-benchmark \
 *     [-Dembed.args="--models all-minilm-l6-v2-q --api ollama"] [-Dtuning=true]
 * </pre>
 *
 * <p>{@code --models} (both by default) and {@code --api openai} (the default, {@code
 * /v1/embeddings}) or {@code ollama} ({@code /api/embed}).
 */
public final class EmbeddingBenchmark {
  private EmbeddingBenchmark() {}

  /** Runs the benchmark for each model and prints its tables. */
  public static void main(String[] args) throws Exception {
    List<LocalModel> models = new ArrayList<>(List.of(LocalModel.values()));
    boolean openAi = true;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--models" -> {
          models.clear();
          for (String id : value.split(",")) {
            models.add(LocalModel.of(id.strip()));
          }
          i++;
        }
        case "--api" -> {
          if (!value.equals("openai") && !value.equals("ollama")) {
            throw new IllegalArgumentException("--api is openai or ollama; got \"" + value + "\"");
          }
          openAi = value.equals("openai");
          i++;
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; the options are --models ID,ID and --api openai|ollama");
      }
    }
    for (LocalModel model : models) {
      long t0 = System.nanoTime();
      try (LocalEmbeddingServer server = LocalEmbeddingServer.start(model, 0)) {
        System.out.printf("%n%s served at %s (%s API), loaded in %.1f s%n", model.id(),
            server.baseUrl(), openAi ? "OpenAI /v1/embeddings" : "Ollama /api/embed",
            (System.nanoTime() - t0) / 1e9);
        HttpToolEmbedder embedder = openAi
            ? HttpToolEmbedder.openAi(server.baseUrl(), model.id(), null)
            : HttpToolEmbedder.ollama(server.baseUrl(), model.id());
        SemanticSearchBenchmark.run(embedder, server::requests, System.out);
      }
    }
  }
}
