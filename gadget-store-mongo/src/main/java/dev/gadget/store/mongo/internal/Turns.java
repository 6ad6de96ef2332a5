package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.ne;
import static com.mongodb.client.model.Sorts.ascending;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The {@code chatTurns} collection: a turn with its ordered blocks and tool calls. Every write is
 * one single-document operation: an insert, a {@code $push} of one block guarded by its
 * {@code seq} (so a replay changes nothing), or an update guarded by
 * {@code status: "processing"} (so exactly one finalizer wins).
 */
public final class Turns {
  private static final String PROCESSING = Fields.wire(TurnStatus.PROCESSING);

  private final Operations ops;
  private final MongoCollection<Document> turns;

  public Turns(Operations ops) {
    this.ops = ops;
    this.turns = ops.collection(Schema.TURNS);
  }

  public void createTurn(ChatTurn turn) {
    Objects.requireNonNull(turn, "turn");
    ops.run("createTurn", "chat turn " + turn.id(), () -> turns.insertOne(Codecs.turn(turn)));
  }

  public Optional<ChatTurn> findTurn(String id) {
    return ops.findOne("findTurn", turns, eq("_id", id), Codecs::turn);
  }

  public List<ChatTurn> listTurns(String sessionId) {
    return ops.findAll("listTurns", turns, eq("sessionId", sessionId), ascending("seq", "_id"),
        Codecs::turn);
  }

  public List<ChatTurn> listUnfinishedTurns() {
    return ops.findAll("listUnfinishedTurns", turns, eq("status", PROCESSING),
        ascending("_id"), Codecs::turn);
  }

  /**
   * One {@code updateOne}: {@code {_id: turnId, "blocks.seq": {$ne: seq}}} with {@code $push}
   * of the block (and of its call onto {@code toolCalls} for a tool block). Only when that
   * matches nothing is the turn read, to tell a replay from a missing turn.
   */
  public void appendBlock(String turnId, TurnBlock block) {
    Bson update = push(block);
    ops.run("appendBlock", "chat turn " + turnId, () -> {
      UpdateResult r = turns.updateOne(withoutSeq(turnId, block.seq()), update);
      if (r.getMatchedCount() == 0 && !Operations.exists(turns, turnId)) {
        throw Operations.notFound("chat turn " + turnId);
      }
    });
  }

  /** The {@code $push} of {@code block} (and of its call onto {@code toolCalls}, for a tool). */
  static Bson push(TurnBlock block) {
    Bson push = Updates.push("blocks", Codecs.block(Objects.requireNonNull(block, "block")));
    if (block instanceof TurnBlock.Tool tool) {
      push = Updates.combine(push, Updates.push("toolCalls", Codecs.toolCall(tool.content())));
    }
    return push;
  }

  /** The turn, when it has no block with {@code seq}. */
  static Bson withoutSeq(String turnId, int seq) {
    return and(eq("_id", turnId), ne("blocks.seq", seq));
  }

  /** The turn, when it has a text block with {@code seq} (for {@code blocks.$}). */
  static Bson withTextSeq(String turnId, int seq) {
    return and(eq("_id", turnId), Filters.elemMatch("blocks",
        and(eq("seq", seq), Filters.nin("mode", "tool", "diff"))));
  }

  /** {@code block}, refused to {@code saveBlock} when it is a tool or diff block. */
  static Document savable(TurnBlock block) {
    Objects.requireNonNull(block, "block");
    if (block instanceof TurnBlock.Tool || block instanceof TurnBlock.Diff) {
      throw new IllegalArgumentException("a " + block.mode()
          + " block is appended once, never saved over");
    }
    return Codecs.block(block);
  }

  /** The failure of a {@code saveBlock} over a tool or diff block. */
  static IllegalArgumentException toolThere(String turnId, TurnBlock block) {
    return new IllegalArgumentException("block " + block.seq() + " of turn " + turnId
        + " is a tool or diff block");
  }

  /**
   * One {@code updateOne} that sets {@code blocks.$} where a text block has the seq; when none
   * has, one more that pushes it where no block has the seq. Only when both match nothing is the
   * turn read, to tell a tool block from a missing turn.
   */
  public void saveBlock(String turnId, TurnBlock block) {
    Document doc = savable(block);
    boolean[] toolThere = {false};
    ops.run("saveBlock", "chat turn " + turnId, () -> {
      UpdateResult r = turns.updateOne(withTextSeq(turnId, block.seq()),
          Updates.set("blocks.$", doc));
      if (r.getMatchedCount() > 0) {
        return;
      }
      r = turns.updateOne(withoutSeq(turnId, block.seq()), Updates.push("blocks", doc));
      if (r.getMatchedCount() == 0) {
        if (!Operations.exists(turns, turnId)) {
          throw Operations.notFound("chat turn " + turnId);
        }
        toolThere[0] = true;
      }
    });
    if (toolThere[0]) {
      throw toolThere(turnId, block);
    }
  }

  /** Sets the turn's {@code droneId}, or removes it for {@code null}. */
  public void setTurnDrone(String turnId, String droneId) {
    Bson update = droneId == null ? Updates.unset("droneId") : Updates.set("droneId", droneId);
    ops.updateExisting("setTurnDrone", turns, "chat turn " + turnId, turnId, update);
  }

  /**
   * One {@code updateOne} filtered on {@code {_id: turnId, status: "processing"}} that sets the
   * status, {@code finishedAt}, the stats (unless {@code null}) and the error (or removes it).
   */
  public boolean finalizeTurn(
      String turnId, TurnStatus status, TurnStats stats, String error, Instant finishedAt) {
    Bson update = end(status, stats, error, finishedAt);
    return ops.call("finalizeTurn", "chat turn " + turnId, () -> turns.updateOne(
        running(turnId), update).getMatchedCount() == 1);
  }

  /** The turn, while it is {@code processing}. */
  static Bson running(String turnId) {
    return and(eq("_id", turnId), eq("status", PROCESSING));
  }

  /** The update that ends a turn: status, {@code finishedAt}, the stats and the error. */
  static Bson end(TurnStatus status, TurnStats stats, String error, Instant finishedAt) {
    if (!Objects.requireNonNull(status, "status").isTerminal()) {
      throw new IllegalArgumentException("not a terminal status: " + status);
    }
    Objects.requireNonNull(finishedAt, "finishedAt");
    List<Bson> sets = new ArrayList<>();
    sets.add(Updates.set("status", Fields.wire(status)));
    sets.addAll(Fields.setInstant("finishedAt", finishedAt));
    if (stats != null) {
      sets.add(Updates.set("stats", Codecs.stats(stats)));
    }
    sets.add(error == null ? Updates.unset("error") : Updates.set("error", error));
    return Updates.combine(sets);
  }
}
