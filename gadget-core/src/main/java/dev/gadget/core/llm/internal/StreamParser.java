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
    OllamaStreamAssembler assembler = new OllamaStreamAssembler(events, ids);
    NdjsonLineReader lines = new NdjsonLineReader(maxLineChars, assembler::acceptLine);
    return new Framed(lines::feed, lines::finish,
        assembler::isDone, assembler::finish, assembler::partial);
  }

  /** The parser for an OpenAI-compatible SSE stream. */
  static StreamParser openAi(StreamEvents events, java.util.function.Supplier<String> ids,
      int maxEventChars) {
    OpenAiStreamAssembler assembler = new OpenAiStreamAssembler(events, ids);
    SseEventReader reader = new SseEventReader(maxEventChars, new SseEventReader.Handler() {
      @Override
      public void onEvent(String id, String type, String data) {
        assembler.acceptEvent(type, data);
      }

      @Override
      public void onOtherField(String name, String value) {
        if (name.equals("error")) {
          assembler.acceptErrorField(value);
        }
      }
    });
    return new Framed(reader::feed, reader::finish,
        assembler::isDone, assembler::finish, assembler::partial);
  }

  /** The parser for an Anthropic Messages API SSE stream. */
  static StreamParser anthropic(StreamEvents events, int maxEventChars) {
    AnthropicStreamAssembler assembler = new AnthropicStreamAssembler(events);
    SseEventReader reader = new SseEventReader(maxEventChars, (id, type, data) ->
        assembler.acceptEvent(type, data));
    // Anthropic ends every event with a blank line: a body that stops inside one was cut off
    // (the stream ended early, its text so far kept), not a malformed event
    return new Framed(reader::feed, reader::finishDroppingUnterminated,
        assembler::isDone, assembler::finish, assembler::partial);
  }

  /**
   * The parser for an OpenAI Responses API SSE stream; like Anthropic's, an unterminated last
   * event is a cut connection, never applied.
   */
  static StreamParser responses(StreamEvents events, java.util.function.Supplier<String> ids,
      int maxEventChars) {
    ResponsesStreamAssembler assembler = new ResponsesStreamAssembler(events, ids);
    SseEventReader reader = new SseEventReader(maxEventChars, (id, type, data) ->
        assembler.acceptEvent(type, data));
    return new Framed(reader::feed, reader::finishDroppingUnterminated,
        assembler::isDone, assembler::finish, assembler::partial);
  }

  /**
   * The parser for an OpenAI-compatible server that answered a streaming request with one JSON
   * document ({@code application/json}): a non-streamed completion or an error.
   */
  static StreamParser openAiJson(StreamEvents events, java.util.function.Supplier<String> ids,
      int maxChars) {
    return new OpenAiJson(events, ids, maxChars);
  }

  /**
   * UTF-8 decoding, then a framing reader (NDJSON lines or SSE events), then a stream
   * assembler; once the assembler has seen the stream's end marker, the rest is ignored.
   */
  final class Framed implements StreamParser {
    private final Utf8Decoder decoder = new Utf8Decoder();
    private final java.util.function.Consumer<String> text;
    private final Runnable endOfText;
    private final java.util.function.BooleanSupplier done;
    private final java.util.function.Supplier<LlmCompletion> completion;
    private final java.util.function.Supplier<LlmCompletion> partial;

    Framed(java.util.function.Consumer<String> text, Runnable endOfText,
        java.util.function.BooleanSupplier done,
        java.util.function.Supplier<LlmCompletion> completion,
        java.util.function.Supplier<LlmCompletion> partial) {
      this.text = text;
      this.endOfText = endOfText;
      this.done = done;
      this.completion = completion;
      this.partial = partial;
    }

    @Override
    public void feed(ByteBuffer bytes) {
      if (!done.getAsBoolean()) {
        text.accept(decoder.decode(bytes));
      } else {
        bytes.position(bytes.limit());
      }
    }

    @Override
    public boolean isDone() {
      return done.getAsBoolean();
    }

    @Override
    public LlmCompletion finish() {
      if (!done.getAsBoolean()) {
        text.accept(decoder.finish());
        endOfText.run();
      }
      return completion.get();
    }

    @Override
    public LlmCompletion partial() {
      return partial.get();
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
