package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.agent.SessionContext;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.RunCommandTool;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.mcp.McpToolset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ACP session: a project directory, its store (the turns so far, from which each prompt's
 * context is built as the server builds a drone's: from the latest compaction on), the tools (the
 * editor's file system and terminal when it offers them, the MCP servers it passed), the calls
 * allowed for the session, and the turn running now, if any. One turn at a time.
 */
final class Session {
  private static final Logger log = LoggerFactory.getLogger(Session.class);
  /** Whether the sandbox's problem was logged: once a process. */
  private static final AtomicBoolean SANDBOX_SAID = new AtomicBoolean();
  private final String id;
  private final Path cwd;
  private final AgentSettings settings;
  private final RpcConnection connection;
  private final McpToolset mcp;
  private final AgentLoop loop;
  private final ChatStore store;
  /** The store's writes of this session's turns, in order, off the loop's path. */
  private final ExecutorService writer;
  private final AtomicReference<AgentRun> running = new AtomicReference<>();
  private final AtomicReference<TurnRecorder> recording = new AtomicReference<>();
  private final AtomicReference<Diffs.Diff> lastDiff = new AtomicReference<>();
  /** The call running now (tools run one at a time), and the editor's terminal it started. */
  private final AtomicReference<String> runningCall = new AtomicReference<>();
  private final Map<String, String> terminals = new ConcurrentHashMap<>();
  /** Calls already announced with {@code tool_call} (while they waited for permission). */
  private final Set<String> announced = ConcurrentHashMap.newKeySet();
  private volatile String model;

  Session(String id, Path cwd, AgentSettings settings, RpcConnection connection,
      ClientCapabilities client, McpToolset mcp, ChatStore store) {
    this.id = Objects.requireNonNull(id, "id");
    this.cwd = Objects.requireNonNull(cwd, "cwd");
    this.settings = settings;
    this.connection = connection;
    this.mcp = mcp;
    this.store = Objects.requireNonNull(store, "store");
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "gadget-acp-store-" + id);
      t.setDaemon(true);
      return t;
    });
    this.model = settings.model();
    List<Tool> tools = new ArrayList<>(Diffs.fileTools(settings.tools(), this, client));
    CommandSandbox sandbox = sandbox(settings, cwd);
    if (client.terminal() && settings.editorTerminal()) {
      tools.replaceAll(t -> t.name().equals(RunCommandTool.NAME) ? new EditorTerminal(this) : t);
    } else if (sandbox.problem().isPresent() && SANDBOX_SAID.compareAndSet(false, true)) {
      log.warn("commands will be refused: {}", sandbox.problem().get());
    }
    if (mcp != null) {
      tools.addAll(mcp.tools());
    }
    this.loop = AgentLoop.builder().llmClient(settings.llm()).tools(tools)
        .limits(settings.limits()).sandbox(sandbox)
        .approvals(settings.approvalPolicy(), new Permissions(this)).build();
  }

  /** The sandbox of {@code cwd}'s commands, with the stored sessions hidden from them. */
  private static CommandSandbox sandbox(AgentSettings settings, Path cwd) {
    CommandSandbox sandbox = settings.sandbox().apply(cwd);
    Path stored = settings.sessionsDirectory();
    return stored == null ? sandbox : sandbox.newBuilder().hide(stored).build();
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

  /** The call about to run; {@code null} once it ended. */
  void runningCall(String callId) {
    runningCall.set(callId);
  }

  /**
   * The running call started the editor's terminal {@code terminalId}: the call's
   * {@code tool_call_update} embeds it, so that the editor shows its output as it comes.
   */
  void terminalStarted(String terminalId) {
    String callId = runningCall.get();
    if (callId == null) {
      return;
    }
    terminals.put(callId, terminalId);
    ObjectNode update = GadgetJson.mapper().createObjectNode()
        .put("sessionUpdate", "tool_call_update").put("toolCallId", callId);
    update.putArray("content").addObject().put("type", "terminal").put("terminalId", terminalId);
    update(update);
  }

  /** The terminal the call {@code callId} ran in, once, or {@code null}. */
  String takeTerminal(String callId) {
    return terminals.remove(callId);
  }

  /**
   * Runs one turn on {@code prompt}, streaming its updates, and returns its stop reason.
   *
   * @throws RpcException when a turn is already running, or the turn failed
   */
  String prompt(String prompt) throws InterruptedException {
    UpdateSender sender = new UpdateSender(this);
    AgentRun run;
    TurnRecorder recorder;
    synchronized (running) {
      if (running.get() != null) {
        throw new RpcException(RpcException.INVALID_REQUEST, "A prompt is already running in "
            + "this session; wait for it to end, or cancel it with session/cancel.");
      }
      List<ChatTurn> history = store.listTurns(id);
      AgentRequest request = AgentRequest.builder(cwd, model, prompt).params(settings.params())
          .context(SessionContext.of(history, user -> null)).chatId(id).build();
      recorder = TurnRecorder.start(store, writer, id,
          history.isEmpty() ? 0 : history.get(history.size() - 1).seq() + 1, prompt, model);
      recording.set(recorder);
      run = loop.start(request, Listeners.both(recorder, sender));
      running.set(run);
    }
    AgentOutcome outcome;
    try {
      outcome = run.outcome().get();
    } catch (ExecutionException e) {
      recorder.finish(new AgentOutcome(AgentOutcome.Status.ERROR, "", "The turn failed: "
          + e.getCause(), null, null, null, e.getCause()));
      throw new IllegalStateException("the turn failed", e.getCause());
    } finally {
      running.set(null);
      recording.set(null);
      announced.clear();
    }
    recorder.finish(outcome);
    switch (outcome.status()) {
      case FINISHED:
        return finishedReason(outcome.finishReason());
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

  /**
   * ACP's stopReason for a turn the model ended: {@code max_tokens} when its last reply was cut
   * at its output limit, {@code refusal} when the provider filtered it or the model refused.
   */
  static String finishedReason(dev.gadget.core.llm.FinishReason reason) {
    if (reason == dev.gadget.core.llm.FinishReason.LENGTH) {
      return "max_tokens";
    }
    return reason == dev.gadget.core.llm.FinishReason.CONTENT_FILTER ? "refusal" : "end_turn";
  }

  /** Cancels the running turn, if any: its stream, its commands, its pending permission. */
  void cancel() {
    AgentRun run = running.get();
    if (run != null) {
      run.cancel();
    }
  }

  /** Waits until what the running turn did so far is stored (before it waits on the editor). */
  void flushWrites() {
    TurnRecorder r = recording.get();
    if (r != null) {
      r.flush();
    }
  }

  /** Sends the stored turns as {@code session/update}s, in order ({@code session/load}). */
  void replay() {
    History.updates(store.listTurns(id), cwd).forEach(this::update);
  }

  /** Cancels the turn, stops the session's MCP servers and closes its store. */
  void close() {
    cancel();
    if (mcp != null) {
      mcp.close();
    }
    AgentRun run = running.get();
    if (run != null) {
      try {
        run.outcome().get(5, TimeUnit.SECONDS); // its end is stored
      } catch (Exception e) {
        // it ends with the process: the next load says so
      }
    }
    writer.shutdown();
    try {
      writer.awaitTermination(TurnRecorder.WRITES.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.close();
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
