package dev.gadget.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnDiff;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.model.WorkspaceMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The payloads of the agent's changes: a turn's diff, undo, commit and push (docs/PROTOCOL-CHANGES.md,
 * "The agent's changes").
 */
public final class ChangePayloads {
  private ChangePayloads() {}


  /**
   * {@code turnChanges}. Drone to server (and forwarded to pages): what a turn did to the
   * project's files, a stream event numbered like the others, sent before
   * {@code workOrderComplete} by a turn that changed any file; the server stores it as a diff
   * block. Server to page, the record of an undo: no {@code seq} and no {@code diff}, but the
   * stored {@code block}.
   *
   * @param turnId the turn
   * @param seq the stream event's number (drone to server); -1 for an undo's record
   * @param diff the changes (drone to server)
   * @param block the stored diff block (server to page, an undo's record)
   */
  public record TurnChanges(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true) long seq, TurnDiff diff, TurnBlock block) {
    public TurnChanges {
      Objects.requireNonNull(turnId, "turnId");
    }
  }

  /** {@code undoTurn} from a page: revert that turn's changes in its drone's workspace. */
  public record UndoTurn(@Rule(required = true, maxLength = Limits.ID) String turnId) {}

  /**
   * {@code commitChanges} from a page: commit the session's changes on {@code branch} (default
   * {@code gadget/<sessionId>}) with {@code message} (default: one the server proposes from the
   * turns' prompts).
   */
  public record CommitChanges(@Rule(required = true, maxLength = Limits.ID) String sessionId,
      @Rule(maxLength = Limits.BRANCH) String branch,
      @Rule(maxLength = Limits.COMMIT_MESSAGE) String message) {}

  /** {@code pushChanges} from a page: push the session's branch to the project's remote. */
  public record PushChanges(@Rule(required = true, maxLength = Limits.ID) String sessionId,
      @Rule(maxLength = Limits.BRANCH) String branch) {}

  /**
   * Server to drone, {@code undoTurn}, {@code commitChanges}, {@code pushChanges}: a git request
   * on a project's checkout. Which fields count depends on the event.
   *
   * @param slug the project's directory in the workspace
   * @param turnIds undo: the one turn; commit: the session's turns, in order
   * @param branch commit and push: the branch
   * @param message commit: the message
   * @param authorName commit: the author's name (the user)
   * @param authorEmail commit: the author's e-mail
   * @param remote push: the remote (default {@code origin})
   * @param prompts commit, when the user gave no message: the first line of each turn's prompt,
   *     in {@code turnIds}' order, so that the drone proposes the message from the turns it
   *     actually commits ({@link #proposedMessage}); {@code message} is then the server's
   *     proposal from all of them, for a drone of an earlier release
   */
  public record ChangesRequest(@Rule(required = true, slug = true) String slug,
      List<String> turnIds, @Rule(maxLength = Limits.BRANCH) String branch,
      @Rule(maxLength = Limits.COMMIT_MESSAGE) String message,
      @Rule(maxLength = Limits.NAME) String authorName,
      @Rule(maxLength = Limits.NAME) String authorEmail,
      @Rule(maxLength = Limits.GIT_URL) String remote, List<String> prompts) {
    public ChangesRequest {
      turnIds = turnIds == null ? List.of() : List.copyOf(turnIds);
      prompts = prompts == null ? List.of() : List.copyOf(prompts);
    }

    /** A request without prompts. */
    public ChangesRequest(String slug, List<String> turnIds, String branch, String message,
        String authorName, String authorEmail, String remote) {
      this(slug, turnIds, branch, message, authorName, authorEmail, remote, List.of());
    }
  }

  /**
   * A proposed commit message from the prompts of the turns it holds, in order: the first one's
   * first line, then, when there are more, each one's.
   */
  public static String proposedMessage(List<String> prompts) {
    List<String> lines = new ArrayList<>();
    for (String prompt : prompts) {
      String first = prompt.strip().lines().findFirst().orElse("").strip();
      lines.add(first.length() > 72 ? first.substring(0, 69) + "..." : first);
    }
    if (lines.isEmpty() || lines.get(0).isEmpty()) {
      return "Changes made with Gadget\n";
    }
    StringBuilder sb = new StringBuilder(lines.get(0)).append('\n');
    if (lines.size() > 1) {
      sb.append("\nChanges made with Gadget, asked for as:\n");
      lines.forEach(l -> sb.append("- ").append(l).append('\n'));
    }
    return sb.toString();
  }

  /**
   * A drone's answer to a {@link ChangesRequest}: {@code ok}, or {@code error} for people; with
   * the undo's diff, or the commit's id, its turns and its message.
   */
  public record ChangesReply(boolean ok, String error, TurnDiff diff, String commit,
      List<String> turnIds, String message) {
    /** A refusal. */
    public static ChangesReply failure(String error) {
      return new ChangesReply(false, error, null, null, null, null);
    }

    /** A reply without the commit's message. */
    public ChangesReply(boolean ok, String error, TurnDiff diff, String commit,
        List<String> turnIds) {
      this(ok, error, diff, commit, turnIds, null);
    }
  }
}
