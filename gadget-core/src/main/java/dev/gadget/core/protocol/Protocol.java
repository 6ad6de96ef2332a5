package dev.gadget.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import java.util.List;

/**
 * Gadget's wire protocol: namespaces and event names (those of seeds 000/001), and helpers to
 * turn typed payloads into event arguments and back. Every event carries exactly one JSON object
 * argument, a payload record of this package; an acknowledgement carries one JSON object too.
 * The full description is {@code docs/PROTOCOL.md}.
 */
public final class Protocol {
  private Protocol() {}

  /** The namespace pages (the web IDE) connect to, with a user token. */
  public static final String PAGE_NAMESPACE = "/";

  /** The namespace drones connect to, with a drone token. */
  public static final String DRONE_NAMESPACE = "/drone";

  // page -> server
  /** Page asks for its projects. Ack: {@code {projects: [...]}}. */
  public static final String LIST_PROJECTS = "listProjects";
  /** Page creates a project. Ack: {@code {project}}. */
  public static final String CREATE_PROJECT = "createProject";
  /** Page asks for a project's chat sessions. Ack: {@code {sessions: [...]}}. */
  public static final String LIST_SESSIONS = "listSessions";
  /** Page creates a chat session. Ack: {@code {session}}. */
  public static final String CREATE_SESSION = "createSession";
  /** Page asks for its drones. Ack: {@code {drones: [...]}}. */
  public static final String LIST_DRONES = "listDrones";
  /** Page starts watching a session. Ack: a {@link Payloads.SessionSnapshot}. */
  public static final String WATCH_SESSION = "watchSession";
  /** Page stops watching a session. */
  public static final String UNWATCH_SESSION = "unwatchSession";
  /** Page submits a prompt. Ack: {@code {turnId}} or {@code {error}}. */
  public static final String SUBMIT_PROMPT = "submitPrompt";
  /** Page cancels a running turn. Ack: {@code {ok}} or {@code {error}}. */
  public static final String CANCEL_TURN = "cancelTurn";

  // page -> server -> drone
  /** Lock a chat session to a workspace (drone). Ack: {@code {ok, workspaceId}} or {@code {error}}. */
  public static final String REQUEST_SESSION_LOCK = "requestSessionLock";
  /** Set a workspace's mode (user, agent, idle). Ack: {@code {ok, mode}} or {@code {error}}. */
  public static final String REQUEST_WORKSPACE_MODE = "requestWorkspaceMode";

  // server -> drone
  /** Server sends a work order. Ack: {@code {accepted: true}} or {@code {accepted: false, reason}}. */
  public static final String PROCESS_WORK_ORDER = "processWorkOrder";
  /** Server cancels the drone's running turn. Ack: {@code {ok}}. */
  public static final String CANCEL_WORK_ORDER = "cancelWorkOrder";
  /** Server answers a crash recovery request: discard or retry. */
  public static final String CRASH_RECOVERY_RESPONSE = "crashRecoveryResponse";

  // drone -> server (and server -> page for the stream events)
  /** Thinking tokens. */
  public static final String THINKING = "thinking";
  /** Response tokens. */
  public static final String RESPONSE = "response";
  /** A tool call with its result. */
  public static final String TOOL_CALL = "toolCall";
  /** The turn ended. Drone to server: with an ack. */
  public static final String WORK_ORDER_COMPLETE = "workOrderComplete";
  /** A drone that restarted with {@code .gadget/work-order.json} asks what to do. */
  public static final String REQUEST_CRASH_RECOVERY = "requestCrashRecovery";
  /** A drone's periodic sign of life while it runs a turn. */
  public static final String HEARTBEAT = "heartbeat";
  /** A drone's status (available, busy); server to page as well. */
  public static final String DRONE_STATUS = "droneStatus";
  /** Server to page: a turn was created in a watched session. */
  public static final String TURN_STARTED = "turnStarted";
  /** Server to page: blocks of a model round redone after a drone's crash are superseded. */
  public static final String BLOCKS_SUPERSEDED = "blocksSuperseded";
  /** Drone to server, server to page: a tool is about to run (its start is journaled). */
  public static final String TOOL_STARTED = "toolStarted";
  /** Page to server: renames one of the user's chat sessions. */
  public static final String RENAME_SESSION = "renameSession";
  /** Page to server: renames one of the user's projects. */
  public static final String RENAME_PROJECT = "renameProject";
  /** Page to server: deletes one of the user's chat sessions with its turns. */
  public static final String DELETE_SESSION = "deleteSession";
  /** Page to server: deletes one of the user's projects with its chat sessions and turns. */
  public static final String DELETE_PROJECT = "deleteProject";
  /** Server to page: a watched chat session was deleted (the page leaves it). */
  public static final String SESSION_DELETED = "sessionDeleted";

  /** The one argument of an event: {@code payload} as a JSON object. */
  public static List<JsonNode> args(Object payload) {
    return List.of(GadgetJson.mapper().valueToTree(payload));
  }

  /**
   * The payload of an event's arguments, read strictly: every field must have its record's type
   * (nothing is coerced: a number is not a string, an enum is one of its names, never its
   * ordinal), required fields must be there and strings must fit {@link Limits}. Unknown fields
   * are ignored.
   *
   * @throws PayloadException when there is no argument or it does not fit {@code type}; its
   *     message names the field and what was expected, in people's words
   */
  public static <T> T payload(List<JsonNode> args, Class<T> type) {
    return PayloadReader.read(args, type);
  }
}
