package dev.gadget.examples.bench;

import dev.gadget.examples.bench.LiveRun.Result;
import java.util.Locale;
import java.util.Map;

/** Issue 22's targets for the live path, each with the numbers it was judged on. */
final class Verdicts {
  private Verdicts() {}

  static void print(Map<String, Result> m) {
    ratio(m, "embedded default >= 0.8x in-memory, 100 turns", "journal@100", "in-memory@100",
        0.8);
    ratio(m, "embedded default after 10,000 stored turns >= 0.9x its own speed",
        "journal-history@100", "journal@100", 0.9);
    ratio(m, "embedded default >= 0.8x in-memory, turns with 3 tool calls, 100 turns",
        "journal-tools@100", "in-memory-tools@100", 0.8);
    ratio(m, "Gadget >= 3x the Node relay, 100 turns", "journal@100", "node@100", 3);
    ratio(m, "Gadget >= 3x the Node relay, 1,000 turns", "journal@1000", "node@1000", 3);
    ratio(m, "Gadget >= 1x the Node relay, 1 turn", "journal@1", "node@1", 1);
    for (String n : new String[] {"@100", "@1000", "@1"}) { // for scale: the library's floor
      Result raw = m.get("raw" + n);
      Result node = m.get("node" + n);
      Result gadget = m.get("journal" + n);
      if (raw != null && node != null) {
        System.out.printf(Locale.ROOT, "INFO bare Java-WebSocket forwarder vs the Node relay, %s"
            + " turns: %.2fx%s%n", n.substring(1), raw.eventsPerSecond() / node.eventsPerSecond(),
            gadget == null ? "" : String.format(Locale.ROOT, "; Gadget at %.2fx the forwarder",
                gadget.eventsPerSecond() / raw.eventsPerSecond()));
      }
    }
    Result paced = m.get("journal-paced");
    if (paced != null) {
      verdict("p99 chunk latency at 21,000 events/s < 5 ms (embedded default)",
          paced.p99Micros() < 5_000, String.format(Locale.ROOT, "p99 %.1f ms at %.0f events/s",
              paced.p99Micros() / 1e3, paced.eventsPerSecond()));
    }
    for (String key : new String[] {"journal@100", "journal@1", "journal@1000"}) {
      Result r = m.get(key);
      if (r != null) {
        // each turn: a thinking and a responding block, no tool call
        double bound = 2 + 0 + r.turnSeconds() + 3;
        verdict("store writes per turn <= blocks + tool calls + turn seconds + 3, " + key,
            r.writesPerTurn() <= bound, String.format(Locale.ROOT,
                "%.2f writes per turn; bound 2 + 0 + %.2f + 3 = %.2f", r.writesPerTurn(),
                r.turnSeconds(), bound));
      }
    }
  }

  private static void ratio(Map<String, Result> m, String what, String a, String b,
      double atLeast) {
    Result x = m.get(a);
    Result y = m.get(b);
    if (x == null || y == null) {
      return;
    }
    double r = x.eventsPerSecond() / y.eventsPerSecond();
    verdict(what, r >= atLeast, String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f events/s)", r,
        x.eventsPerSecond(), y.eventsPerSecond()));
  }

  static void verdict(String what, boolean met, String numbers) {
    System.out.printf(Locale.ROOT, "%-4s %s: %s%n", met ? "MET" : "MISS", what, numbers);
  }
}
