package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.mcp.McpToolset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One ACP session: a project directory, the conversation so far, the tools (the editor's file
 * system when it offers one, the MCP servers it passed), the calls allowed for the session, and
 * the turn running now, if any. One turn at a time.
 */
final class Session {
  private final String id;
  private final Path cwd;
  private final AgentSettings settings;
  private final RpcConnection connection;
  private final McpToolset mcp;
  private final AgentLoop loop;
  private final List<ChatMessage> context = new ArrayList<>();
  private final AtomicReference<AgentRun> running = new AtomicReference<>();
  private final AtomicReference<Diffs.Diff> lastDiff = new AtomicReference<>();
  /** Calls already announced with {@code tool_call} (while they waited for permission). */
  private final Set<String> announced = ConcurrentHashMap.newKeySet();
  private volatile String model;

  Session(String id, Path cwd, AgentSettings settings, RpcConnection connection,
      ClientCapabilities client, McpToolset mcp) {
    this.id = Objects.requireNonNull(id, "id");
    this.cwd = Objects.requireNonNull(cwd, "cwd");
    this.settings = settings;
    this.connection = connection;
    this.mcp = mcp;
    this.model = settings.model();
    List<Tool> tools = new ArrayList<>(Diffs.fileTools(settings.tools(), this, client));
    if (mcp != null) {
      tools.addAll(mcp.tools());
    }
    this.loop = AgentLoop.builder().llmClient(settings.llm()).tools(tools)
        .limits(settings.limits()).sandbox(settings.sandbox().apply(cwd))
        .approvals(settings.approvalPolicy(), new Permissions(this)).build();
  }

  String id() {
    return id;
  }

  Path cwd() {
    return cwd;
  }

  RpcConnection connection() {
    return connection;
  }

  String model() {
    return model;
  }

  void model(String model) {
    this.model = model;
  }

  AtomicReference<Diffs.Diff> lastDiff() {
    return lastDiff;
  }

  /**
   * Runs one turn on {@code prompt}, streaming its updates, and returns its stop reason.
   *
   * @throws RpcException when a turn is already running, or the turn failed
   */
  String prompt(String prompt) throws InterruptedException {
    UpdateSender sender = new UpdateSender(this);
    AgentRequest request;
    synchronized (context) {
      request = AgentRequest.builder(cwd, model, prompt).params(settings.params())
          .context(List.copyOf(context)).build();
    }
    AgentRun run;
    synchronized (running) {
      if (running.get() != null) {
        throw new RpcException(RpcException.INVALID_REQUEST, "A prompt is already running in "
            + "this session; wait for it to end, or cancel it with session/cancel.");
      }
      run = loop.start(request, sender);
      running.set(run);
    }
    AgentOutcome outcome;
    try {
      outcome = run.outcome().get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("the turn failed", e.getCause());
    } finally {
      running.set(null);
      announced.clear();
    }
    synchronized (context) {
      context.addAll(outcome.messages());
    }
    switch (outcome.status()) {
      case FINISHED:
        return "end_turn";
      case CANCELLED:
        return "cancelled";
      case LIMIT_HIT:
        sender.message("\n\n" + outcome.message());
        return "max_turn_requests";
      default:
        throw new RpcException(RpcException.INTERNAL_ERROR, outcome.message() == null
            ? "The turn failed." : outcome.message());
    }
  }

  /** Cancels the running turn, if any: its stream, its commands, its pending permission. */
  void cancel() {
    AgentRun run = running.get();
    if (run != null) {
      run.cancel();
    }
  }

  /** Cancels the turn and stops the session's MCP servers. */
  void close() {
    cancel();
    if (mcp != null) {
      mcp.close();
    }
  }

  /** Sends a {@code session/update} whose {@code update} is {@code update}. */
  void update(ObjectNode update) {
    ObjectNode params = GadgetJson.mapper().createObjectNode().put("sessionId", id);
    params.set("update", update);
    connection.notify("session/update", params);
  }

  /**
   * Announces a call that waits for permission with {@code tool_call} (status pending) and
   * returns the tool call for the permission request.
   */
  ObjectNode announcePending(String callId, String tool, String parameters) {
    ObjectNode call = toolCall(callId, tool, parameters, "pending");
    ObjectNode update = call.deepCopy();
    update.put("sessionUpdate", "tool_call");
    update(update);
    announced.add(callId);
    return call;
  }

  /** Whether {@code callId} was announced already (and so gets {@code tool_call_update}s). */
  boolean wasAnnounced(String callId) {
    return announced.contains(callId);
  }

  /** A tool call as ACP describes it (without {@code sessionUpdate}). */
  ObjectNode toolCall(String callId, String tool, String parameters, String status) {
    JsonNode args = ToolCalls.arguments(parameters);
    ObjectNode call = GadgetJson.mapper().createObjectNode().put("toolCallId", callId)
        .put("title", ToolCalls.title(tool, args)).put("kind", ToolCalls.kind(tool))
        .put("status", status);
    call.set("locations", ToolCalls.locations(tool, args, cwd));
    call.set("rawInput", args);
    return call;
  }
}
