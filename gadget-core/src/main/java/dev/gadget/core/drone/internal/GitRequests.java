package dev.gadget.core.drone.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GitChanges;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.model.TurnDiff;
import dev.gadget.core.protocol.ChangePayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Ack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's git requests on a project's checkout (undo a turn, commit the session's turns on
 * a branch, push it), run one at a time on a thread of their own (at most 16 waiting), so that
 * git never holds up the drone's connection. Always answered: {@code {ok: true, …}} or
 * {@code {ok: false, error}} in people's words.
 */
final class GitRequests {
  private static final Logger log = LoggerFactory.getLogger(GitRequests.class);

  private final JobRunner jobs;
  private final DroneWorkspace workspace;
  private final ThreadPoolExecutor executor = new ThreadPoolExecutor(0, 1, 30,
      TimeUnit.SECONDS, new ArrayBlockingQueue<>(16), r -> {
        Thread t = new Thread(r, "gadget-drone-git");
        t.setDaemon(true);
        return t;
      });

  GitRequests(JobRunner jobs, DroneWorkspace workspace) {
    this.jobs = jobs;
    this.workspace = workspace;
  }

  void onUndo(List<JsonNode> args, Ack ack) {
    ChangePayloads.ChangesRequest req = Protocol.payload(args, ChangePayloads.ChangesRequest.class);
    if (req.turnIds().size() != 1) {
      throw new IllegalArgumentException("undo takes exactly one turn");
    }
    changing(ack, req, "undo", dir -> {
      TurnDiff revert = TurnCheckpoint.GIT.undo(dir, req.turnIds().get(0));
      return new ChangePayloads.ChangesReply(true, null, revert, null, null);
    });
  }

  void onCommit(List<JsonNode> args, Ack ack) {
    ChangePayloads.ChangesRequest req = Protocol.payload(args, ChangePayloads.ChangesRequest.class);
    if (req.branch() == null || req.message() == null || req.authorName() == null
        || req.authorEmail() == null) {
      throw new IllegalArgumentException("a commit needs a branch, a message and an author");
    }
    changing(ack, req, "commit", dir -> {
      boolean propose = req.prompts().size() == req.turnIds().size() && !req.prompts().isEmpty();
      String[] used = {req.message()};
      GitChanges.Commit c = TurnCheckpoint.GIT.commit(dir, req.turnIds(), req.branch(),
          committed -> used[0] = propose ? ChangePayloads.proposedMessage(committed.stream()
              .map(id -> req.prompts().get(req.turnIds().indexOf(id))).toList()) : req.message(),
          req.authorName(), req.authorEmail());
      return new ChangePayloads.ChangesReply(true, null, null, c.commit(), c.turnIds(),
          used[0]);
    });
  }

  /** A deleted chat's turns: their checkpoints go. */
  void onForget(List<JsonNode> args, Ack ack) {
    ChangePayloads.ChangesRequest req = Protocol.payload(args, ChangePayloads.ChangesRequest.class);
    run(ack, req, dir -> {
      TurnCheckpoint.GIT.forget(dir, new java.util.HashSet<>(req.turnIds()));
      return new ChangePayloads.ChangesReply(true, null, null, null, null);
    });
  }

  void onPush(List<JsonNode> args, Ack ack) {
    ChangePayloads.ChangesRequest req = Protocol.payload(args, ChangePayloads.ChangesRequest.class);
    if (req.branch() == null) {
      throw new IllegalArgumentException("a push needs a branch");
    }
    run(ack, req, dir -> {
      TurnCheckpoint.GIT.push(dir, req.remote() == null ? "origin" : req.remote(), req.branch());
      return new ChangePayloads.ChangesReply(true, null, null, null, null);
    });
  }

  /**
   * Runs {@code work}, which changes the checkout ({@code what}: undo, commit), refused while a
   * turn runs; from now until it is answered, no work order is accepted.
   */
  private void changing(Ack ack, ChangePayloads.ChangesRequest req, String what,
      Function<Path, ChangePayloads.ChangesReply> work) {
    String running = jobs.gitChangeBegins();
    if (running != null) {
      log.info("git request on {} refused: turn {} runs", req.slug(), running);
      ServerEvents.reply(ack, ChangePayloads.ChangesReply.failure("the agent is running turn "
          + running + "; " + what + " once it has ended"));
      return;
    }
    run(ack, req, work, jobs::gitChangeDone);
  }

  private void run(Ack ack, ChangePayloads.ChangesRequest req,
      Function<Path, ChangePayloads.ChangesReply> work) {
    run(ack, req, work, () -> { });
  }

  private void run(Ack ack, ChangePayloads.ChangesRequest req,
      Function<Path, ChangePayloads.ChangesReply> work, Runnable done) {
    Path dir;
    try {
      dir = workspace.projectDir(req.slug());
    } catch (RuntimeException e) {
      done.run();
      throw e;
    }
    try {
      executor.execute(() -> {
        ChangePayloads.ChangesReply reply;
        try {
          if (!Files.isDirectory(dir.resolve(".git"))) {
            throw new WorkspaceException("the project is not checked out in this workspace");
          }
          reply = work.apply(dir);
        } catch (WorkspaceException | IllegalArgumentException e) {
          log.info("git request on {} refused: {}", req.slug(), e.getMessage());
          reply = ChangePayloads.ChangesReply.failure(e.getMessage());
        } catch (RuntimeException e) {
          log.warn("git request on {} failed", req.slug(), e);
          reply = ChangePayloads.ChangesReply.failure("the drone failed to run git");
        } finally {
          done.run();
        }
        ServerEvents.reply(ack, reply);
      });
    } catch (RejectedExecutionException e) {
      done.run();
      ServerEvents.reply(ack, ChangePayloads.ChangesReply.failure(
          "the drone has too many git requests waiting; try again in a moment"));
    }
  }
}
