package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmCompletion;
import java.nio.ByteBuffer;

/**
 * Turns the bytes of one response body into reply events: a UTF-8 decoder, a framing reader and
 * a stream assembler in a row. Pure (no I/O); fed in whatever pieces the network delivers.
 * Failures are thrown as {@link dev.gadget.core.llm.LlmException}. Not thread-safe.
 */
public interface StreamParser {
  /** Feeds the next bytes of the body (consuming the buffer). */
  void feed(ByteBuffer bytes);

  /** Whether the stream's own end marker arrived (what follows it is ignored). */
  boolean isDone();

  /** The end of the body: the completion, or an exception when the stream ended early. */
  LlmCompletion finish();

  /** What arrived so far, for an error report. */
  LlmCompletion partial();

  /** The parser for Ollama's NDJSON stream. */
  static StreamParser ollama(StreamEvents events, java.util.function.Supplier<String> ids,
      int maxLineChars) {
    return new Ollama(events, ids, maxLineChars);
  }

  /** The parser for an OpenAI-compatible SSE stream. */
  static StreamParser openAi(StreamEvents events, java.util.function.Supplier<String> ids,
      int maxEventChars) {
    return new OpenAi(events, ids, maxEventChars);
  }

  /**
   * The parser for an OpenAI-compatible server that answered a streaming request with one JSON
   * document ({@code application/json}): a non-streamed completion or an error.
   */
  static StreamParser openAiJson(StreamEvents events, java.util.function.Supplier<String> ids,
      int maxChars) {
    return new OpenAiJson(events, ids, maxChars);
  }

  /** Ollama: UTF-8, NDJSON lines, {@link OllamaStreamAssembler}. */
  final class Ollama implements StreamParser {
    private final Utf8Decoder decoder = new Utf8Decoder();
    private final OllamaStreamAssembler assembler;
    private final NdjsonLineReader lines;

    Ollama(StreamEvents events, java.util.function.Supplier<String> ids, int maxLineChars) {
      assembler = new OllamaStreamAssembler(events, ids);
      lines = new NdjsonLineReader(maxLineChars, assembler::acceptLine);
    }

    @Override
    public void feed(ByteBuffer bytes) {
      if (!assembler.isDone()) {
        lines.feed(decoder.decode(bytes));
      } else {
        bytes.position(bytes.limit());
      }
    }

    @Override
    public boolean isDone() {
      return assembler.isDone();
    }

    @Override
    public LlmCompletion finish() {
      if (!assembler.isDone()) {
        lines.feed(decoder.finish());
        lines.finish();
      }
      return assembler.finish();
    }

    @Override
    public LlmCompletion partial() {
      return assembler.partial();
    }
  }

  /** OpenAI-compatible: UTF-8, SSE events, {@link OpenAiStreamAssembler}. */
  final class OpenAi implements StreamParser {
    private final Utf8Decoder decoder = new Utf8Decoder();
    private final OpenAiStreamAssembler assembler;
    private final SseEventReader reader;

    OpenAi(StreamEvents events, java.util.function.Supplier<String> ids, int maxEventChars) {
      assembler = new OpenAiStreamAssembler(events, ids);
      reader = new SseEventReader(maxEventChars, (id, type, data) ->
          assembler.acceptEvent(type, data));
    }

    @Override
    public void feed(ByteBuffer bytes) {
      if (!assembler.isDone()) {
        reader.feed(decoder.decode(bytes));
      } else {
        bytes.position(bytes.limit());
      }
    }

    @Override
    public boolean isDone() {
      return assembler.isDone();
    }

    @Override
    public LlmCompletion finish() {
      if (!assembler.isDone()) {
        reader.feed(decoder.finish());
        reader.finish();
      }
      return assembler.finish();
    }

    @Override
    public LlmCompletion partial() {
      return assembler.partial();
    }
  }

  /** OpenAI-compatible, answered with one JSON document. */
  final class OpenAiJson implements StreamParser {
    private final Utf8Decoder decoder = new Utf8Decoder();
    private final OpenAiStreamAssembler assembler;
    private final StringBuilder body = new StringBuilder();
    private final int maxChars;

    OpenAiJson(StreamEvents events, java.util.function.Supplier<String> ids, int maxChars) {
      this.assembler = new OpenAiStreamAssembler(events, ids);
      this.maxChars = maxChars;
    }

    @Override
    public void feed(ByteBuffer bytes) {
      body.append(decoder.decode(bytes));
      if (body.length() > maxChars) {
        throw Errors.protocol("JSON response larger than " + maxChars + " characters");
      }
    }

    @Override
    public boolean isDone() {
      return false;
    }

    @Override
    public LlmCompletion finish() {
      body.append(decoder.finish());
      String json = body.toString();
      if (json.isBlank()) {
        throw Errors.protocol("empty response where a stream was expected");
      }
      assembler.acceptEvent(null, json); // throws for an error document
      if (!Json.parse(json, "JSON response").path("choices").isArray()) {
        throw Errors.protocol("JSON response is neither a completion nor an error: "
            + Json.abbreviate(json, 200));
      }
      assembler.acceptEvent(null, "[DONE]");
      return assembler.finish();
    }

    @Override
    public LlmCompletion partial() {
      return assembler.partial();
    }
  }
}
