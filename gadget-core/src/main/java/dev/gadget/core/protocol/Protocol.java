package dev.gadget.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

  /**
   * Drone to server, server to page: output a running tool printed (bounded per second and in
   * total by the drone; not stored: the {@code toolCall} result keeps the bounded output).
   */
  public static final String TOOL_OUTPUT = "toolOutput";

  /**
   * Drone to server, on every connect: the tools it offers every turn (a turn may add its
   * project's own, such as MCP servers named in {@code .mcp.json}).
   */
  public static final String DRONE_TOOLS = "droneTools";

  /**
   * The namespace of seed 004's agent event schema, a second face of the server for clients
   * written against it: a user token, as on {@link #PAGE_NAMESPACE}. See
   * {@code docs/PROTOCOL-AGENT.md}.
   */
  public static final String AGENT_NAMESPACE = "/agent";
  /** Seed 004, client to server: {@code {prompt, session_id}}. */
  public static final String QUERY = "query";
  /** Seed 004: {@code {data: "Connected to agent"}} once connected. */
  public static final String CONNECTED = "connected";
  /** Seed 004: {@code {event_type, data}}, one of the lifecycle events. */
  public static final String AGENT_EVENT = "agent_event";
  /** Seed 004: {@code {success, response, metadata, session_id}} once a query's turn ended. */
  public static final String QUERY_COMPLETE = "query_complete";
  /** Seed 004: {@code {session_id, messages: [...]}}, the session's recent messages. */
  public static final String SESSION_MEMORY = "session_memory";
  /** Seed 004: {@code {count}}, the tools the user's drones offer. */
  public static final String TOOL_COUNT = "tool_count";
  /** Seed 004: {@code {message}}, a query that could not be processed. */
  public static final String ERROR = "error";

  /**
   * Drone to server, server to page: what a turn did to the project's files, at its end (a
   * stream event with a {@code seq}; it becomes a diff block). Server to page also, without a
   * {@code seq}, for the record of an undo: {@code {turnId, block}}.
   */
  public static final String TURN_CHANGES = "turnChanges";
  /** Page to server to drone: revert one turn's changes. Ack: {@code {ok, block}} or {@code {error}}. */
  public static final String UNDO_TURN = "undoTurn";
  /** Page to server to drone: commit a session's changes on a branch. Ack: {@code {ok, branch, commit, message}}. */
  public static final String COMMIT_CHANGES = "commitChanges";
  /** Page to server to drone: push a session's branch. Ack: {@code {ok, branch, remote}}. */
  public static final String PUSH_CHANGES = "pushChanges";
  /**
   * Server to drone, no ack: a deleted chat's turns ({@code ChangesRequest} with {@code slug} and
   * {@code turnIds}); the drone removes their checkpoint refs.
   */
  public static final String FORGET_CHECKPOINTS = "forgetCheckpoints";
  /** Drone -> server -> page: the agent compacted its context (a stream event, numbered). */
  public static final String COMPACTION = "compaction";

  /**
   * Drone to server, server to every page of the drone's user: the drone's workspace mode
   * changed ({@code agent} while a turn runs, {@code user}, {@code idle}); sent on every change
   * and on every (re)connection.
   */
  public static final String WORKSPACE_MODE = "workspaceMode";

  /**
   * Page to server to drone: the drone's workspace state now ({@code .gadget/workspace.json},
   * its mode and status, the cached work order's turn), answered by the drone itself.
   */
  public static final String GET_WORKSPACE_STATE = "getWorkspaceState";
  /**
   * Page to server to drone: the skills and synthesized tools a chat's turns are offered (the
   * chat's project on the drone of its latest turn), each tool experimental or stable.
   */
  public static final String LIST_AGENT_TOOLS = "listAgentTools";
  /**
   * Page to server to drone: promote a chat's synthesized tool (stable now) or delete a tool or
   * a project skill (its folder in the project goes, its registry entry too).
   */
  public static final String CHANGE_AGENT_TOOL = "changeAgentTool";
  /** Page to server to drone: release the workspace's lock on a chat session and its project. */
  public static final String RELEASE_SESSION_LOCK = "releaseSessionLock";

  /**
   * Drone to server, on every connection: the drone's registration as the server keeps it (its
   * id, status and time), which the drone writes to {@code .gadget/workspace.json}. Ack: a
   * {@link WorkspacePayloads.RegistrationReply}.
   */
  public static final String DRONE_REGISTRATION = "droneRegistration";

  /**
   * Server to drone: send a running turn's events again from a point
   * ({@link ResumePayloads.ResumeStream}), after the drone's link came back or the server
   * restarted.
   */
  public static final String RESUME_STREAM = "resumeStream";

  /**
   * Drone to server: the turn's events follow again from a seq ({@link ResumePayloads.StreamReplay}).
   */
  public static final String STREAM_REPLAY = "streamReplay";

  /**
   * Server to page: a turn that ran while the server restarted goes on; its blocks from one on are
   * rebuilt ({@link ResumePayloads.TurnResumed}).
   */
  public static final String TURN_RESUMED = "turnResumed";

  /**
   * Server to page: a drone crashed during a watched turn, and the server told it to retry
   * (seed 001, "Drone crashed during processing - retrying").
   */
  public static final String TURN_RECOVERED = "turnRecovered";

  /**
   * Drone to server, server to the turn's watchers: the running turn's stats so far, after each
   * model round and each tool run.
   */
  public static final String TURN_STATS = "turnStats";

  // approvals (docs/PROTOCOL-APPROVALS.md, "Approvals")
  /**
   * Drone to server: a tool call waits for approval; sent again while undecided. Ack:
   * {@link ApprovalPayloads.ApprovalAck}.
   */
  public static final String APPROVAL_REQUEST = "approvalRequest";
  /** Server to page: a tool call waits for approval ({@link ApprovalPayloads.ApprovalPending}). */
  public static final String APPROVAL_PENDING = "approvalPending";
  /** Page to server: approve or deny a waiting call. Ack: {@code {ok}} or {@code {error}}. */
  public static final String ANSWER_APPROVAL = "answerApproval";
  /** Server to page and drone: a waiting call was decided ({@link ApprovalPayloads.ApprovalDecided}). */
  public static final String APPROVAL_DECIDED = "approvalDecided";
  /**
   * Page to server: set or read a chat session's approval policy. Ack:
   * {@link ApprovalPayloads.ApprovalPolicyReply}.
   */
  public static final String APPROVAL_POLICY = "approvalPolicy";

  /** The one argument of an event: {@code payload} as a JSON object. */
  public static List<JsonNode> args(Object payload) {
    if (payload instanceof Payloads.TextEvent e && e.reasoning().isEmpty()) {
      // the stream's own event, one per token: built by hand, the tree valueToTree would make
      ObjectNode node = GadgetJson.mapper().createObjectNode().put("turnId", e.turnId())
          .put("seq", e.seq()).put("data", e.data());
      if (e.tokens() != null) {
        node.put("tokens", e.tokens());
      }
      return List.of(node);
    }
    return List.of(GadgetJson.mapper().valueToTree(payload));
  }

  /**
   * The arguments {@code event} was read from, when they are what {@link #args} builds for it
   * (its fields and nothing else), so a relay can send them on as they came instead of building
   * them again; otherwise null. {@code received} must be the arguments {@code event} was read
   * from (by {@link #payload}, which checked every field's type): the object then holds
   * {@code turnId}, {@code seq}, {@code data} and, when not null, {@code tokens}, so holding no
   * more fields than those means holding nothing else.
   */
  public static List<JsonNode> receivedArgs(Payloads.TextEvent event, List<JsonNode> received) {
    int fields = event.tokens() == null ? 3 : 4;
    return event.reasoning().isEmpty() && received.size() == 1 && received.get(0).isObject()
        && received.get(0).size() == fields ? received : null;
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
