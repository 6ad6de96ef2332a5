package dev.gadget.bench.embed;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The embedding models {@link LocalEmbeddingServer} can serve: quantized ONNX models packaged by
 * LangChain4j ({@code dev.langchain4j:langchain4j-embeddings-*-q:1.0.0-beta5}), run in-process by
 * ONNX Runtime on the CPU.
 */
public enum LocalModel {
  /** sentence-transformers' all-MiniLM-L6-v2, quantized: 384 dimensions, 23 MB. */
  MINILM("all-minilm-l6-v2-q", AllMiniLmL6V2QuantizedEmbeddingModel::new),
  /** BAAI's bge-small-en-v1.5, quantized: 384 dimensions, 34 MB. */
  BGE_SMALL("bge-small-en-v1.5-q", BgeSmallEnV15QuantizedEmbeddingModel::new);

  private final String id;
  private final Supplier<EmbeddingModel> loader;

  LocalModel(String id, Supplier<EmbeddingModel> loader) {
    this.id = id;
    this.loader = loader;
  }

  /** The name a request gives in {@code "model"}. */
  public String id() {
    return id;
  }

  /** Loads the model (a few seconds: ONNX Runtime reads it from its jar). */
  EmbeddingModel load() {
    return loader.get();
  }

  /** The model called {@code id}. */
  public static LocalModel of(String id) {
    for (LocalModel m : values()) {
      if (m.id.equals(id)) {
        return m;
      }
    }
    throw new IllegalArgumentException("no local embedding model \"" + id + "\"; there are "
        + Arrays.stream(values()).map(LocalModel::id).collect(Collectors.joining(", ")));
  }
}
