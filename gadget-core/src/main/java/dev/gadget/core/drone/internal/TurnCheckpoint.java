package dev.gadget.core.drone.internal;

import dev.gadget.core.drone.GitChanges;
import dev.gadget.core.model.TurnDiff;
import dev.gadget.core.protocol.ChangePayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A turn's checkpoint of its project's working tree, taken before the agent starts (so before
 * its first write or command), and the report of what the turn changed, sent as a numbered
 * {@code turnChanges} stream event just before the turn's end. A project that cannot be
 * checkpointed (git fails) runs its turn all the same, without a diff.
 */
final class TurnCheckpoint {
  private static final Logger log = LoggerFactory.getLogger(TurnCheckpoint.class);
  /** The drone's git for changes: checkpoints, diffs, undo, commit, push. */
  static final GitChanges GIT = new GitChanges(Duration.ofMinutes(2));

  private final Path dir;
  private final String turnId;
  private final int keep;

  private TurnCheckpoint(Path dir, String turnId, int keep) {
    this.dir = dir;
    this.turnId = turnId;
    this.keep = keep;
  }

  /**
   * The checkpoint of {@code dir} before {@code turnId} (a crashed run's is kept), or null; the
   * project keeps the checkpoints of {@code keep} turns past the turn's end.
   */
  static TurnCheckpoint take(Path dir, String turnId, int keep) {
    try {
      GIT.checkpoint(dir, turnId);
      return new TurnCheckpoint(dir, turnId, keep);
    } catch (RuntimeException e) {
      log.warn("turn {}: cannot checkpoint {}, so its changes will not be shown: {}", turnId,
          dir, e.getMessage());
      return null;
    }
  }

  /** Sends what the turn changed, if anything, as the turn's next stream event. */
  void report(Job job, DroneState state, ServerLink link) {
    TurnDiff diff;
    try {
      diff = GIT.finish(dir, turnId);
    } catch (RuntimeException e) {
      log.warn("turn {}: cannot tell what it changed: {}", turnId, e.getMessage());
      return;
    }
    try {
      int pruned = GIT.prune(dir, keep);
      if (pruned > 0) {
        log.info("{}: pruned the checkpoints of {} old turns", dir, pruned);
      }
    } catch (RuntimeException e) {
      log.warn("{}: cannot prune old checkpoints: {}", dir, e.getMessage());
    }
    if (diff.isEmpty()) {
      return;
    }
    ChangePayloads.TurnChanges payload;
    synchronized (state) {
      if (job.abandoned || job.finished) {
        return;
      }
      payload = new ChangePayloads.TurnChanges(turnId, job.nextSeq++, diff, null);
    }
    link.emitTurn(turnId, payload.seq(), Protocol.TURN_CHANGES, payload);
  }
}
