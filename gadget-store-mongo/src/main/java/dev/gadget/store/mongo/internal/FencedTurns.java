package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The fenced writes of the {@code chatTurns} collection ({@code ChatStore#claimTurn} and the
 * fenced {@code appendBlock}, {@code saveBlock}, {@code finalizeTurn}; docs/CLUSTER.md
 * "Fencing"). A turn's fence is its document's {@code fence} field (Int64), absent until its first
 * fenced write. Each write is the plain one of {@link Turns} as one {@code updateOne} whose filter
 * adds {@code {$or: [{fence: {$exists: false}}, {fence: {$lte: f}}]}} and whose update adds
 * {@code {$max: {fence: f}}}: the check and the raise are one atomic write. A claim by a holder
 * h is strict, but for a fence h claimed already: its filter is {@code {$or: [{fence: {$exists:
 * false}}, {fence: {$lt: f}}, {fence: f, claim: {fence: f, holder: h}}]}}, and it sets
 * {@code claim} to that. Only when it matches
 * nothing is the turn read once (its {@code fence} alone) to say why: no such turn
 * ({@code NOT_FOUND}), a greater fence ({@code FENCED}), else the plain reason (the block is
 * there, the turn has ended). A fence never goes down, so a fence the read finds no greater than
 * f was no greater at the write either.
 */
public final class FencedTurns {
  private static final String FENCE = "fence";
  private static final String CLAIM = "claim";

  private final Operations ops;
  private final MongoCollection<Document> turns;

  public FencedTurns(Operations ops) {
    this.ops = ops;
    this.turns = ops.collection(Schema.TURNS);
  }

  /** One {@code updateOne} of the fence alone. */
  public void claimTurn(String turnId, long fence) {
    ops.run("claimTurn", what(turnId), () -> {
      if (turns.updateOne(fenced(eq("_id", turnId), fence), raise(fence)).getMatchedCount() == 0
          && !exists(turnId, fence)) {
        throw Operations.notFound(what(turnId));
      }
    });
  }

  /** One {@code updateOne} of the fence and the claim. */
  public void claimTurn(String turnId, long fence, String holder) {
    Document claim = new Document(FENCE, fence).append("holder", holder);
    Bson filter = and(eq("_id", turnId), Filters.or(Filters.exists(FENCE, false),
        Filters.lt(FENCE, fence), and(eq(FENCE, fence), eq(CLAIM, claim))));
    ops.run("claimTurn", what(turnId), () -> {
      if (turns.updateOne(filter, Updates.combine(raise(fence), Updates.set(CLAIM, claim)))
          .getMatchedCount() == 0 && !exists(turnId, fence, true)) {
        throw Operations.notFound(what(turnId));
      }
    });
  }

  /** One {@code updateOne}: {@link Turns#appendBlock}'s, fenced. */
  public void appendBlock(String turnId, TurnBlock block, long fence) {
    Bson update = Updates.combine(Turns.push(block), raise(fence));
    ops.run("appendBlock", what(turnId), () -> {
      if (turns.updateOne(fenced(Turns.withoutSeq(turnId, block.seq()), fence), update)
          .getMatchedCount() == 0 && !exists(turnId, fence)) {
        throw Operations.notFound(what(turnId));
      }
    });
  }

  /** {@link Turns#saveBlock}'s one {@code updateOne} (two when the block is new), fenced. */
  public void saveBlock(String turnId, TurnBlock block, long fence) {
    Document doc = Turns.savable(block);
    boolean[] toolThere = {false};
    ops.run("saveBlock", what(turnId), () -> {
      if (turns.updateOne(fenced(Turns.withTextSeq(turnId, block.seq()), fence),
          Updates.combine(Updates.set("blocks.$", doc), raise(fence))).getMatchedCount() > 0
          || turns.updateOne(fenced(Turns.withoutSeq(turnId, block.seq()), fence),
              Updates.combine(Updates.push("blocks", doc), raise(fence))).getMatchedCount() > 0) {
        return;
      }
      if (!exists(turnId, fence)) {
        throw Operations.notFound(what(turnId));
      }
      toolThere[0] = true;
    });
    if (toolThere[0]) {
      throw Turns.toolThere(turnId, block);
    }
  }

  /** One {@code updateOne}: {@link Turns#finalizeTurn}'s, fenced; false for a missing turn. */
  public boolean finalizeTurn(String turnId, TurnStatus status, TurnStats stats, String error,
      Instant finishedAt, long fence) {
    Bson update = Updates.combine(Turns.end(status, stats, error, finishedAt), raise(fence));
    return ops.call("finalizeTurn", what(turnId), () -> {
      if (turns.updateOne(fenced(Turns.running(turnId), fence), update).getMatchedCount() == 1) {
        return true;
      }
      exists(turnId, fence);
      return false;
    });
  }

  /** {@code filter}, and the turn holds no fence or one no greater than {@code fence}. */
  private static Bson fenced(Bson filter, long fence) {
    return and(filter, Filters.or(Filters.exists(FENCE, false), Filters.lte(FENCE, fence)));
  }

  private static Bson raise(long fence) {
    return Updates.max(FENCE, fence);
  }

  /**
   * Whether the turn exists, read once after a fenced write matched nothing.
   *
   * @throws StoreException {@link StoreException.Reason#FENCED} when it holds a fence greater
   *     than {@code fence} (or equal, {@code strict})
   */
  private boolean exists(String turnId, long fence) {
    return exists(turnId, fence, false);
  }

  /** {@code strict}: a claim's, for which an equal fence is another holder's. */
  private boolean exists(String turnId, long fence, boolean strict) {
    Document d = turns.find(eq("_id", turnId)).projection(new Document(FENCE, 1)).first();
    if (d == null) {
      return false;
    }
    if (d.get(FENCE) instanceof Number held
        && (held.longValue() > fence || strict && held.longValue() == fence)) {
      throw StoreException.fenced(turnId, held.longValue(), fence);
    }
    return true;
  }

  private static String what(String turnId) {
    return "chat turn " + turnId;
  }
}
