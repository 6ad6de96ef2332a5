package dev.gadget.examples;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import java.util.HashSet;
import java.util.Set;

/** What the process tests check in a stored turn. */
final class StoredTurns {
  private StoredTurns() {}

  /** The text of a thinking or responding block. */
  static String text(TurnBlock b) {
    return b instanceof TurnBlock.Thinking th ? th.content()
        : ((TurnBlock.Responding) b).content();
  }

  /** Tokens of the model's rounds (t12r1.003) that a stored turn holds twice, outside
   *  superseded blocks: 1 if any, else 0. */
  static int repeats(ChatTurn t) {
    Set<String> seen = new HashSet<>();
    for (TurnBlock b : t.blocks()) {
      if (b.isSuperseded() || !(b instanceof TurnBlock.Responding r)) {
        continue;
      }
      for (String token : r.content().split("\\s+")) {
        if (!token.isEmpty() && !seen.add(token)) {
          return 1;
        }
      }
    }
    return 0;
  }
}
