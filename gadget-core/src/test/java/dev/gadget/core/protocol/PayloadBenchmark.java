package dev.gadget.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.WorkOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures what reading payloads strictly costs (not a test): {@link Protocol#payload} against
 * Jackson's plain {@code treeToValue}, on a stream token ({@code response}, the most frequent
 * event) and on a work order with 20 messages of context.
 *
 * <pre>
 * ./mvnw -B -q -pl gadget-core test-compile exec:java \
 *     -Dexec.mainClass=dev.gadget.core.protocol.PayloadBenchmark -Dexec.classpathScope=test \
 *     [-Dexec.args="SECONDS"]
 * </pre>
 */
public final class PayloadBenchmark {
  private PayloadBenchmark() {}

  /** Runs the benchmark. */
  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
    List<JsonNode> token = Protocol.args(new Payloads.TextEvent("6b04d108299913c4eaabf03a",
        4_211, " token"));
    List<ChatMessage> context = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      context.add(new ChatMessage(Instant.EPOCH, i % 2 == 0 ? Role.USER : Role.ASSISTANT,
          "message " + i + " ".repeat(200)));
    }
    List<JsonNode> order = Protocol.args(new Payloads.ProcessWorkOrder(new WorkOrder("w1",
        new WorkOrder.ProjectRef("p1", "Project", "project", "https://example.com/p.git"),
        new ProviderConfig("openai", "http://127.0.0.1:1", "sk-1", "m", null),
        new WorkOrder.SessionRef("s1", "Chat", context),
        new WorkOrder.TurnRef("t1", "build", "Fix the bug")), 0, false));
    System.out.printf(Locale.ROOT, "Java %s, %.0f s per measure%n",
        System.getProperty("java.version"), seconds);
    for (int round = 0; round < 2; round++) {
      String label = round == 0 ? "(warm-up) " : "";
      report(label + "token, Jackson treeToValue", seconds,
          () -> GadgetJson.mapper().treeToValue(token.get(0), Payloads.TextEvent.class));
      report(label + "token, Protocol.payload", seconds,
          () -> Protocol.payload(token, Payloads.TextEvent.class));
      report(label + "work order, Jackson treeToValue", seconds,
          () -> GadgetJson.mapper().treeToValue(order.get(0), Payloads.ProcessWorkOrder.class));
      report(label + "work order, Protocol.payload", seconds,
          () -> Protocol.payload(order, Payloads.ProcessWorkOrder.class));
    }
  }

  private interface Read {
    Object run() throws Exception;
  }

  private static void report(String what, double seconds, Read read) throws Exception {
    long n = 0;
    long sink = 0;
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    while (System.nanoTime() < end) {
      for (int i = 0; i < 1_000; i++) {
        sink += read.run().hashCode();
      }
      n += 1_000;
    }
    double perSecond = n / ((System.nanoTime() - start) / 1e9);
    System.out.printf(Locale.ROOT, "%-45s %,12.0f payloads/s (%d)%n", what, perSecond,
        sink & 1);
  }
}
