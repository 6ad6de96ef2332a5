package dev.gadget.core.llm;

import dev.gadget.core.llm.internal.NdjsonLineReader;
import dev.gadget.core.llm.internal.SseEventReader;
import dev.gadget.core.llm.internal.StreamEvents;
import dev.gadget.core.llm.internal.StreamParser;
import dev.gadget.core.llm.internal.Utf8Decoder;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Measures the throughput of each stream parser on a large generated stream (not a test).
 *
 * <pre>
 * ./mvnw -B -q -pl gadget-core test-compile exec:java \
 *     -Dexec.mainClass=dev.gadget.core.llm.ParserBenchmark -Dexec.classpathScope=test \
 *     [-Dexec.args="SIZE_MB CHUNK_BYTES"]
 * </pre>
 *
 * <p>It generates an Ollama NDJSON stream and an OpenAI-compatible SSE stream of about
 * {@code SIZE_MB} (default 32) megabytes each, shaped like real ones (one token per chunk,
 * mixed ASCII and multi-byte text, reasoning, tool-call fragments), feeds them in pieces of
 * {@code CHUNK_BYTES} (default 16384, a typical HTTP read), and prints MB/s (10^6 bytes) for
 * each stage: the UTF-8 decoder alone, decoder plus NDJSON line reader, decoder plus SSE event
 * reader, and the whole Ollama and OpenAI parsers (framing, JSON and assembly).
 */
public final class ParserBenchmark {
  private static final String[] WORDS = {"the", " quick", " brown", " fox", " jumps", " über",
      " den", " faulen", " Hund", " 世界", " 🌍", " naïve", " café", "\\n", " if", " (x", " >",
      " 0)", " {", " return", " y;", " }", " «quoted»", " ok"};

  private ParserBenchmark() {}

  /** Runs the benchmark. */
  public static void main(String[] args) {
    int sizeMb = args.length > 0 ? Integer.parseInt(args[0]) : 32;
    int chunk = args.length > 1 ? Integer.parseInt(args[1]) : 16_384;
    byte[] ollama = ollamaStream(sizeMb * 1_000_000L);
    byte[] openAi = openAiStream(sizeMb * 1_000_000L);
    System.out.printf(Locale.ROOT, "Java %s, %d-byte reads; Ollama stream %.1f MB, OpenAI stream "
        + "%.1f MB%n", System.getProperty("java.version"), chunk, ollama.length / 1e6,
        openAi.length / 1e6);

    AtomicInteger sink = new AtomicInteger();
    report("UTF-8 decoder (Ollama stream)", ollama, chunk, () -> {
      Utf8Decoder d = new Utf8Decoder();
      return buf -> sink.addAndGet(d.decode(buf).length());
    });
    report("UTF-8 + NDJSON line reader", ollama, chunk, () -> {
      Utf8Decoder d = new Utf8Decoder();
      NdjsonLineReader r = new NdjsonLineReader(1 << 24, line -> sink.incrementAndGet());
      return buf -> r.feed(d.decode(buf));
    });
    report("UTF-8 + SSE event reader", openAi, chunk, () -> {
      Utf8Decoder d = new Utf8Decoder();
      SseEventReader r = new SseEventReader(1 << 24, (id, type, data) -> sink.incrementAndGet());
      return buf -> r.feed(d.decode(buf));
    });
    report("Ollama parser (whole)", ollama, chunk, () -> {
      StreamParser p = StreamParser.ollama(StreamEvents.NONE, () -> "id", 1 << 24);
      return p::feed;
    });
    report("OpenAI parser (whole)", openAi, chunk, () -> {
      StreamParser p = StreamParser.openAi(StreamEvents.NONE, () -> "id", 1 << 24);
      return p::feed;
    });
    if (sink.get() == 42) {
      System.out.println(); // keeps the work observable
    }
  }

  private static void report(String name, byte[] data, int chunk,
      java.util.function.Supplier<Consumer<ByteBuffer>> make) {
    int warmups = 6;
    int runs = 5;
    double[] mbps = new double[runs];
    for (int i = 0; i < warmups + runs; i++) {
      Consumer<ByteBuffer> feed = make.get();
      long start = System.nanoTime();
      for (int pos = 0; pos < data.length; pos += chunk) {
        feed.accept(ByteBuffer.wrap(data, pos, Math.min(chunk, data.length - pos)));
      }
      long nanos = System.nanoTime() - start;
      if (i >= warmups) {
        mbps[i - warmups] = data.length / 1e6 / (nanos / 1e9);
      }
    }
    Arrays.sort(mbps);
    System.out.printf(Locale.ROOT, "%-32s median %8.1f MB/s   best %8.1f MB/s%n", name,
        mbps[runs / 2], mbps[runs - 1]);
  }

  private static String token(Random r) {
    return WORDS[r.nextInt(WORDS.length)];
  }

  static byte[] ollamaStream(long size) {
    Random r = new Random(1);
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) size + 4096);
    long n = 0;
    while (out.size() < size) {
      String line;
      if (n % 3000 == 2999) {
        line = "{\"model\":\"qwen3:8b\",\"created_at\":\"2025-06-01T10:00:00.123456789Z\","
            + "\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":"
            + "{\"name\":\"read_file\",\"arguments\":{\"path\":\"src/main/java/App.java\"}}}]},"
            + "\"done\":false}\n";
      } else {
        String field = n % 2 == 0 ? "thinking" : "content";
        line = "{\"model\":\"qwen3:8b\",\"created_at\":\"2025-06-01T10:00:00.123456789Z\","
            + "\"message\":{\"role\":\"assistant\",\"content\":\""
            + (field.equals("content") ? token(r) : "") + "\""
            + (field.equals("thinking") ? ",\"thinking\":\"" + token(r) + "\"" : "")
            + "},\"done\":false}\n";
      }
      out.writeBytes(line.getBytes(StandardCharsets.UTF_8));
      n++;
    }
    out.writeBytes(("{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},"
        + "\"done_reason\":\"stop\",\"done\":true,\"eval_count\":" + n + "}\n")
        .getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  static byte[] openAiStream(long size) {
    Random r = new Random(2);
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) size + 4096);
    String head = "data: {\"id\":\"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG\",\"object\":"
        + "\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o-2024-08-06\","
        + "\"system_fingerprint\":\"fp_eb9dce56a8\",\"choices\":[{\"index\":0,\"delta\":{";
    String tail = "},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
    long n = 0;
    while (out.size() < size) {
      String delta;
      if (n % 500 == 0) {
        delta = "\"tool_calls\":[{\"index\":" + (n / 500) + ",\"id\":\"call_" + n
            + "\",\"type\":\"function\",\"function\":{\"name\":\"grep\",\"arguments\":\"\"}}]";
      } else if (n % 500 < 4) {
        delta = "\"tool_calls\":[{\"index\":" + (n / 500)
            + ",\"function\":{\"arguments\":\"{\\\"q\\\":\\\"x\"}}]";
      } else if (n % 500 == 4) {
        delta = "\"tool_calls\":[{\"index\":" + (n / 500) + ",\"function\":{\"arguments\":\"\\\"}\"}}]";
      } else if (n % 2 == 0) {
        delta = "\"reasoning_content\":\"" + token(r) + "\"";
      } else {
        delta = "\"content\":\"" + token(r) + "\"";
      }
      out.writeBytes((head + delta + tail).getBytes(StandardCharsets.UTF_8));
      n++;
    }
    out.writeBytes(("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
        + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":" + n + "}}\n\n"
        + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }
}
