package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.Requests.handle;
import static dev.gadget.core.server.internal.Requests.reply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.WorkspacePayloads;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.transport.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything a signed-in page may ask, one handler per event: its projects, chat sessions and
 * drones; watching a session; submitting a prompt and cancelling a turn; locking a session to a
 * workspace and switching a workspace's mode; renaming and deleting chats and projects. A page
 * reaches only its own user's data. Each payload has been checked against its record's rules
 * (required fields, types, {@code Limits}) before its handler runs.
 */
public final class PageRequests {
  private final ServerSettings settings;
  private final ChatStore store;
  private final WatcherRooms rooms;
  private final LiveTurns turns;
  private final Ownership owned;
  private final TurnDispatcher dispatcher;
  private final DroneRequests droneRequests;
  private final ProviderRequests providerRequests;
  private final DroneRouter router;
  private final ChangeRequests changeRequests;
  private final AgentToolRequests agentToolRequests;
  private final ApprovalDesk approvals;
  private final Deletions deletions;
  private final ClusterNode node;

  public PageRequests(ServerSettings settings, WatcherRooms rooms, LiveTurns turns,
      DroneRouter router, ApprovalDesk approvals, ClusterNode node) {
    this.node = node;
    this.settings = settings;
    this.store = settings.store();
    this.rooms = rooms;
    this.turns = turns;
    this.owned = new Ownership(store);
    this.router = router;
    ProviderResolver resolver = new ProviderResolver(settings);
    this.dispatcher = new TurnDispatcher(settings, owned, router, turns, resolver, approvals,
        node);
    this.approvals = approvals;
    this.providerRequests = new ProviderRequests(settings, owned, resolver);
    this.droneRequests = new DroneRequests(settings, owned, router, node);
    this.changeRequests = new ChangeRequests(settings, owned, router, turns, node, rooms);
    this.agentToolRequests = new AgentToolRequests(settings, owned, changeRequests);
    this.deletions = new Deletions(store, owned, router, turns, rooms);
    if (node != null) {
      node.answerWith(dispatcher, approvals);
    }
  }

  /** A cancel: of a turn here, else (in a cluster) of one another node runs. */
  private void cancel(String userId, String turnId) {
    java.util.Optional<dev.gadget.core.model.ChatTurn> t = elsewhere(userId, turnId);
    if (t.isPresent()) {
      node.cancelElsewhere(userId, t.get());
      return;
    }
    dispatcher.cancel(userId, turnId);
  }

  /** An approval's answer: for a turn here, else (in a cluster) for one another node runs. */
  private void answerApproval(String userId, ApprovalPayloads.AnswerApproval req) {
    java.util.Optional<dev.gadget.core.model.ChatTurn> t = elsewhere(userId, req.turnId());
    if (t.isPresent()) {
      node.approvalElsewhere(userId, t.get(), req);
      return;
    }
    approvals.answer(userId, req);
  }

  /**
   * In a cluster: the user's running turn {@code turnId} when this node does not run it, or no
   * longer may (another node holds its drone now: it is let go here, {@link TurnFence}).
   */
  private java.util.Optional<dev.gadget.core.model.ChatTurn> elsewhere(String userId,
      String turnId) {
    LiveTurn here = node == null || turnId == null ? null : turns.get(turnId);
    if (node == null || turnId == null || here != null && !turns.fence.lost(here)) {
      return java.util.Optional.empty();
    }
    return store.findTurn(turnId).filter(x -> x.userId().equals(userId)
        && x.status() == dev.gadget.core.model.TurnStatus.PROCESSING);
  }

  /** A page of {@code userId} connected: registers its handlers. */
  public void connected(Connection c, String userId) {
    rooms.pageConnected(c, userId);
    handle(c, Protocol.LIST_PROJECTS, JsonNode.class, (req, ack) ->
        reply(ack, Map.of("projects", store.listProjects(userId))));
    handle(c, Protocol.CREATE_PROJECT, Payloads.CreateProject.class, (req, ack) -> {
      String name = ProjectRules.check(req.name(), req.gitUrl(), store.listProjects(userId));
      Project project = new Project(Ids.next(), userId, name, req.slug(), req.gitUrl().strip(),
          settings.clock().instant());
      store.createProject(project);
      reply(ack, Map.of("project", project));
    });
    handle(c, Protocol.LIST_SESSIONS, Payloads.ListSessions.class, (req, ack) ->
        reply(ack, Map.of("sessions", store.listSessions(userId, req.projectId()))));
    handle(c, Protocol.CREATE_SESSION, Payloads.CreateSession.class, (req, ack) -> {
      Project project = owned.project(userId, req.projectId());
      String name = req.name() == null || req.name().isBlank() ? "New chat" : req.name();
      ChatSession s = new ChatSession(
          Ids.next(), userId, project.id(), name, null, settings.clock().instant());
      store.createSession(s);
      reply(ack, Map.of("session", s));
    });
    handle(c, Protocol.LIST_DRONES, JsonNode.class, (req, ack) ->
        reply(ack, Map.of("drones", droneList(userId))));
    handle(c, Protocol.WATCH_SESSION, Payloads.WatchSession.class, (req, ack) -> {
      ChatSession session = owned.session(userId, req.sessionId());
      Payloads.SessionSnapshot s = turns.snapshot(c, session);
      reply(ack, new Payloads.SessionSnapshot(s.sessionId(), s.turns(), s.live(),
          new ApprovalPayloads.ApprovalPolicyReply(s.sessionId(),
              approvals.policy(session).wireName(), s.approvals().pending(),
              session.createTools())));
    });
    handle(c, Protocol.UNWATCH_SESSION, Payloads.WatchSession.class, (req, ack) -> {
      rooms.leave(req.sessionId(), c);
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, Protocol.SUBMIT_PROMPT, Payloads.SubmitPrompt.class, (req, ack) ->
        reply(ack, new Payloads.SubmitReply(dispatcher.submitAnywhere(userId, req), null)));
    handle(c, Protocol.CANCEL_TURN, Payloads.CancelTurn.class, (req, ack) -> {
      cancel(userId, req.turnId());
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, Protocol.REQUEST_SESSION_LOCK, Payloads.SessionLock.class, (req, ack) ->
        droneRequests.lockSession(userId, req, ack));
    handle(c, Protocol.REQUEST_WORKSPACE_MODE, Payloads.WorkspaceModeRequest.class,
        (req, ack) -> droneRequests.workspaceMode(userId, req, ack));
    handle(c, Protocol.RENAME_SESSION, Payloads.RenameSession.class, (req, ack) -> {
      ChatSession s = owned.session(userId, req.sessionId());
      String name = req.name().strip().replaceAll("\\s+", " ");
      store.renameSession(s.id(), name);
      reply(ack, Map.of("session", s.withName(name)));
    });
    handle(c, Protocol.RENAME_PROJECT, Payloads.RenameProject.class, (req, ack) -> {
      Project p = owned.project(userId, req.projectId());
      String name = ProjectRules.checkName(req.name(), store.listProjects(userId).stream()
          .filter(o -> !o.id().equals(p.id())).toList());
      store.renameProject(p.id(), name);
      reply(ack, Map.of("project", p.withName(name)));
    });
    handle(c, Protocol.GET_WORKSPACE_STATE, WorkspacePayloads.DroneRef.class,
        (req, ack) -> droneRequests.workspaceState(userId, req, ack));
    handle(c, Protocol.RELEASE_SESSION_LOCK, WorkspacePayloads.DroneRef.class,
        (req, ack) -> droneRequests.releaseLock(userId, req, ack));
    handle(c, Protocol.DELETE_SESSION, Payloads.DeleteSession.class, (req, ack) -> {
      Runnable delete = () -> deletions.deleteSession(userId, req.sessionId());
      if (node == null) {
        delete.run();
      } else { // a turn of it may run on another node: none starts while it is deleted
        node.whileClaimed(List.of(owned.session(userId, req.sessionId()).id()),
            id -> "the agent is still working in this chat: stop it or wait for it to "
                + "finish, then delete the chat", delete);
      }
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, Protocol.DELETE_PROJECT, Payloads.DeleteProject.class, (req, ack) -> {
      Runnable delete = () -> deletions.deleteProject(userId, req.projectId());
      if (node == null) {
        delete.run();
      } else {
        Map<String, String> names = new java.util.LinkedHashMap<>();
        for (ChatSession s : store.listSessions(userId, owned.project(userId,
            req.projectId()).id())) {
          names.put(s.id(), s.name());
        }
        node.whileClaimed(List.copyOf(names.keySet()), id -> "the agent is still working in "
            + "the chat \"" + names.get(id) + "\" of this project: stop it or wait for it to "
            + "finish, then delete the project", delete);
      }
      reply(ack, Payloads.OkReply.success());
    });
    providerRequests.register(c, userId);
    handle(c, Protocol.ANSWER_APPROVAL, ApprovalPayloads.AnswerApproval.class, (req, ack) -> {
      answerApproval(userId, req);
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, Protocol.APPROVAL_POLICY, ApprovalPayloads.ApprovalPolicyRequest.class, (req, ack) -> {
      ChatSession session = owned.session(userId, req.sessionId());
      ApprovalPolicy policy = approvals.policy(session);
      if (req.policy() != null) {
        policy = ApprovalPolicy.fromWireName(req.policy());
        approvals.setPolicy(session.id(), policy);
      }
      Boolean createTools = session.createTools();
      if (req.createTools() != null) {
        approvals.setCreateTools(session.id(), req.createTools());
        createTools = req.createTools();
      }
      reply(ack, new ApprovalPayloads.ApprovalPolicyReply(session.id(), policy.wireName(), null,
          createTools));
    });
    changeRequests.register(c, userId);
    agentToolRequests.register(c, userId);
  }

  /**
   * The user's drones as stored, each connected one with its {@code toolCount} and its workspace
   * {@code mode} as the server that holds it knows them (in a cluster, another node's drone as
   * its node says, {@link RemoteDrones#facts}; left without them when that node does not answer
   * in time).
   */
  private List<JsonNode> droneList(String userId) {
    List<DroneRegistration> stored = store.listDrones(userId);
    // a drone not connected here: in a cluster, its status as stored by the node that holds it
    Map<String, String> holders = node == null ? Map.of() : node.drones().holders(stored);
    Map<String, RemoteDrones.Facts> facts = node == null ? Map.of()
        : node.drones().factsNow(userId, holders);
    List<JsonNode> out = new ArrayList<>();
    for (DroneRegistration d : stored) {
      ConnectedDrone live = router.find(d.id());
      boolean connected = live != null && live.isConnected();
      // What the store says was true when the drone was last seen: after a restart (or a crash
      // that never stored "offline") a drone is offline until its connection is back.
      ObjectNode n = GadgetJson.mapper().valueToTree(connected || holders.containsKey(d.id())
          || d.status() == DroneStatus.OFFLINE
          ? d : d.withStatus(DroneStatus.OFFLINE, d.lastSeenAt()));
      RemoteDrones.Facts there = facts.get(d.id());
      if (connected) {
        n.put("toolCount", live.toolCount());
        n.put("mode", live.mode.name().toLowerCase(Locale.ROOT));
      } else if (there != null) {
        n.put("toolCount", there.tools().size());
        n.put("mode", there.mode());
      }
      out.add(n);
    }
    return out;
  }

  /** A page disconnected: it leaves every room. */
  public void disconnected(Connection c) {
    rooms.pageDisconnected(c);
  }
}
