package dev.gadget.core.llm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Recorded-style streams: the files under {@code src/test/resources/llm/} (shaped after what
 * Ollama, OpenAI, DeepSeek, OpenRouter and others send), plus literals whose exact line endings
 * matter.
 */
public final class Recordings {
  private Recordings() {}

  /** A recording by path under {@code llm/}, such as {@code ollama/truncated.ndjson}. */
  public static String load(String path) {
    try (InputStream in = Recordings.class.getResourceAsStream("/llm/" + path)) {
      if (in == null) {
        throw new IllegalArgumentException("no recording " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String delta(String content) {
    return "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + content
        + "\"},\"finish_reason\":null}]}";
  }

  /**
   * SSE framing as servers really send it: comment keep-alives, {@code event:}, {@code id:} and
   * {@code retry:} fields, CRLF, bare CR and LF line endings, a JSON object split over two
   * {@code data:} lines, a field without a space after the colon, and an unterminated last event.
   * Text: "abcd", finish reason stop.
   */
  public static final String SSE_FRAMING =
      ": keep-alive\r\n\r\n"
      + "event: message\r\nid: 1\r\nretry: 3000\r\ndata: " + delta("a") + "\r\n\r\n"
      + "data: {\"choices\":[{\"index\":0,\r\ndata: \"delta\":{\"content\":\"b\"},\"finish_reason\":null}]}\r\n\r\n"
      + ":ping\r" + "data: " + delta("c") + "\r\r"
      + "id:2\ndata:" + delta("d") + "\n\n"
      + ": keep-alive\n\n"
      + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n"
      + "data: [DONE]";
}
