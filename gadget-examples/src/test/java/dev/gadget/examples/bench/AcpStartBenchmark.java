package dev.gadget.examples.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How long an editor waits for {@code gadget.jar acp} (docs/ACP.md): per round, a cold start of
 * the jar in a new JVM, the time until it answers {@code initialize}, and the time until the
 * first {@code agent_message_chunk} of a prompt ({@code --llm scripted} by default, or the model
 * the extra arguments name). Prints a table; a program, not a test. JDK only:
 *
 * <pre>
 * java -cp gadget-examples/target/test-classes dev.gadget.examples.bench.AcpStartBenchmark \
 *     gadget-examples/target/gadget.jar [rounds] [acp options, such as --llm ollama --model qwen3]
 * </pre>
 */
public final class AcpStartBenchmark {
  private static final long TARGET_MS = 1000;
  private static final long DEADLINE_S = 120;

  private AcpStartBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args.length > 0 ? args[0] : "gadget-examples/target/gadget.jar");
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    List<String> options = args.length > 2 ? List.of(args).subList(2, args.length)
        : List.of("--llm", "scripted");
    if (!Files.isRegularFile(jar)) {
      System.err.println(jar + " is missing: build it with ./mvnw -B -pl gadget-examples -am "
          + "package -DskipTests");
      System.exit(2);
    }
    Path project = Files.createTempDirectory("acp-bench-");
    Files.writeString(project.resolve("README.md"), "# Bench\n\nA project to look at.\n");
    System.out.printf("gadget.jar acp cold start, %d rounds, %s%n%n", rounds,
        String.join(" ", options));
    System.out.printf("%5s  %14s  %18s%n", "round", "initialize ms", "first chunk ms");
    List<Long> inits = new ArrayList<>();
    List<Long> chunks = new ArrayList<>();
    for (int i = 1; i <= rounds; i++) {
      long[] r = round(jar, options, project);
      inits.add(r[0]);
      chunks.add(r[1]);
      System.out.printf("%5d  %14d  %18d%n", i, r[0], r[1]);
    }
    System.out.println();
    System.out.printf("%-22s %8s %8s %8s%n", "", "median", "p90", "max");
    System.out.printf("%-22s %8d %8d %8d%n", "initialize answered", pct(inits, 50),
        pct(inits, 90), Collections.max(inits));
    System.out.printf("%-22s %8d %8d %8d%n", "first message chunk", pct(chunks, 50),
        pct(chunks, 90), Collections.max(chunks));
    System.out.println();
    System.out.println("target: initialize answered in under " + TARGET_MS + " ms from a cold "
        + "start: " + (pct(inits, 90) < TARGET_MS ? "MET" : "NOT MET") + " (p90 "
        + pct(inits, 90) + " ms)");
  }

  /** One cold start: milliseconds to the initialize answer and to the first message chunk. */
  private static long[] round(Path jar, List<String> options, Path project) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-jar", jar.toString(), "acp"));
    cmd.addAll(options);
    // sessions are stored as in real use, in a directory of the benchmark's, not the user's
    cmd.addAll(List.of("--sessions-dir", project.resolveSibling(project.getFileName()
        + "-sessions").toString()));
    long start = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (OutputStream in = p.getOutputStream();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
            StandardCharsets.UTF_8))) {
      send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
          + "{\"protocolVersion\":1,\"clientCapabilities\":{}}}");
      await(out, "\"id\":1,");
      long init = (System.nanoTime() - start) / 1_000_000;
      send(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\",\"params\":{\"cwd\":\""
          + project.toString().replace("\\", "\\\\") + "\",\"mcpServers\":[]}}");
      String created = await(out, "\"id\":2,");
      int at = created.indexOf("\"sessionId\":\"") + 13;
      String session = created.substring(at, created.indexOf('"', at));
      long asked = System.nanoTime();
      send(in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/prompt\",\"params\":"
          + "{\"sessionId\":\"" + session + "\",\"prompt\":[{\"type\":\"text\",\"text\":"
          + "\"What is this project about?\"}]}}");
      await(out, "agent_message_chunk");
      long chunk = (System.nanoTime() - asked) / 1_000_000;
      return new long[] {init, chunk};
    } finally {
      p.destroy();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  private static void send(OutputStream in, String line) throws IOException {
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** The first line that contains {@code marker}, within the deadline. */
  private static String await(BufferedReader out, String marker) throws Exception {
    CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
      try {
        for (String l = out.readLine(); l != null; l = out.readLine()) {
          if (l.contains(marker)) {
            return l;
          }
        }
        throw new IllegalStateException("the agent closed its output before " + marker);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    return line.get(DEADLINE_S, TimeUnit.SECONDS);
  }

  private static long pct(List<Long> values, int p) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }
}
