package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.Requests.handle;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.protocol.AgentToolPayloads;
import dev.gadget.core.protocol.AgentToolPayloads.AgentToolsReply;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import java.util.List;
import java.util.Map;

/**
 * A page's requests about a chat's skills and synthesized tools: listed, promoted or deleted by
 * the drone that ran the chat's latest turn (its workspace holds the project's tools and their
 * registry), reached as undo reaches it ({@link ChangeRequests#droneCall}). The page gets
 * {@code {"skills", "tools"}} as they are after the request, or {@code {"error"}}.
 */
final class AgentToolRequests {
  private final ServerSettings settings;
  private final ChatStore store;
  private final Ownership owned;
  private final ChangeRequests changes;

  AgentToolRequests(ServerSettings settings, Ownership owned, ChangeRequests changes) {
    this.settings = settings;
    this.store = settings.store();
    this.owned = owned;
    this.changes = changes;
  }

  void register(Connection c, String userId) {
    handle(c, Protocol.LIST_AGENT_TOOLS, AgentToolPayloads.ListAgentTools.class, (req, ack) -> {
      ChatSession session = owned.session(userId, req.sessionId());
      ask(userId, session, new AgentToolPayloads.AgentToolsRequest(slug(userId, session), null,
          null, null), Protocol.LIST_AGENT_TOOLS, ack);
    });
    handle(c, Protocol.CHANGE_AGENT_TOOL, AgentToolPayloads.ChangeAgentTool.class,
        (req, ack) -> {
          ChatSession session = owned.session(userId, req.sessionId());
          changes.idle(session);
          ask(userId, session, new AgentToolPayloads.AgentToolsRequest(slug(userId, session),
              req.kind(), req.name(), req.action()), Protocol.CHANGE_AGENT_TOOL, ack);
        });
  }

  private String slug(String userId, ChatSession session) {
    Project project = owned.project(userId, session.projectId());
    return project.slug();
  }

  private void ask(String userId, ChatSession session, Object payload, String event, Ack ack) {
    List<ChatTurn> turns = store.listTurns(session.id());
    String droneId = null;
    for (ChatTurn t : turns) {
      if (t.droneId() != null) {
        droneId = t.droneId();
      }
    }
    if (droneId == null) {
      throw new RequestException("no turn of this chat ran on a drone yet: its skills and tools "
          + "are in the workspace of the drone that runs it");
    }
    DroneCall drone = changes.droneCall(userId, droneId);
    if (drone == null) {
      throw new RequestException("the drone of this chat is not connected");
    }
    drone.ask(event, Protocol.args(payload), settings.ackTimeout()).whenComplete((r, e) -> {
      Object answer;
      if (e != null) {
        answer = new Payloads.ErrorReply("the drone did not answer: " + e.getMessage());
      } else {
        AgentToolsReply reply = read(r);
        answer = reply.ok() ? Map.of("skills", reply.skills() == null ? List.of()
            : reply.skills(), "tools", reply.tools() == null ? List.of() : reply.tools())
            : new Payloads.ErrorReply(reply.error() == null ? "the drone refused"
                : reply.error());
      }
      Requests.reply(ack, answer);
    });
  }

  private static AgentToolsReply read(List<JsonNode> reply) {
    try {
      return Protocol.payload(reply, AgentToolsReply.class);
    } catch (IllegalArgumentException e) {
      return AgentToolsReply.failure("the drone sent an invalid answer");
    }
  }
}
