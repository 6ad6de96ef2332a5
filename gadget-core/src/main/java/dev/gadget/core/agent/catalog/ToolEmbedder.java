package dev.gadget.core.agent.catalog;

import java.util.List;

/**
 * Turns texts into embedding vectors, for semantic tool search ({@link SemanticToolIndex}). An
 * SPI: {@link HttpToolEmbedder} speaks Ollama's {@code /api/embed} and OpenAI-compatible
 * {@code /v1/embeddings}; an application may bring its own.
 *
 * <p>Called on the threads of {@code search_tools} calls (agent turns'), possibly several at once:
 * an implementation must be thread-safe and bound its own waits.
 */
public interface ToolEmbedder {
  /** The model's name: part of every cached vector's key, so two models never share one. */
  String model();

  /**
   * The vectors of {@code texts}, in order, all of one length.
   *
   * @throws EmbeddingException when the model cannot be reached or answers otherwise
   */
  List<float[]> embed(List<String> texts);

  /** An embedding model could not be reached, or answered something else than vectors. */
  final class EmbeddingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A failure, in words. */
    public EmbeddingException(String message) {
      super(message);
    }

    /** A failure, in words, with its cause. */
    public EmbeddingException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
