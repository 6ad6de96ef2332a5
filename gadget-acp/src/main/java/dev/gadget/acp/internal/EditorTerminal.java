package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.tools.RunCommandTool;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code run_command} in the editor's terminal, when it offers one: {@code terminal/create}
 * ({@code /bin/sh -c command} in the project directory, output bounded), the terminal embedded in
 * the call's {@code tool_call_update} at once so that the editor shows it live, then
 * {@code terminal/wait_for_exit} within the command's timeout, {@code terminal/output} for what
 * the model reads, and always {@code terminal/release}. A timeout or a cancelled turn sends
 * {@code terminal/kill} first. Same arguments and result as the core's tool: the exit code, then
 * the output; a non-zero exit is an unsuccessful call.
 *
 * <p>The editor runs the command, not Gadget's sandbox: the approval policy still decides which
 * commands ask first.
 */
final class EditorTerminal implements Tool {
  /** The most output the editor keeps for the model, in bytes (as the core tool's). */
  static final long OUTPUT_BYTES = 30_000;
  static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);
  static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
  /** How long the editor may take to answer a create, output, kill or release. */
  static final Duration ANSWER = Duration.ofSeconds(30);
  private static final Logger log = LoggerFactory.getLogger(EditorTerminal.class);

  private final RunCommandTool core = new RunCommandTool(DEFAULT_TIMEOUT, MAX_TIMEOUT,
      (int) OUTPUT_BYTES);
  private final Session session;

  EditorTerminal(Session session) {
    this.session = session;
  }

  @Override
  public String name() {
    return RunCommandTool.NAME;
  }

  @Override
  public String description() {
    return core.description();
  }

  @Override
  public JsonNode parameters() {
    return core.parameters();
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
    JsonNode c = args.get("command");
    if (c == null || !c.isTextual() || c.asText().isBlank()) {
      throw new ToolException(c == null || !c.isTextual()
          ? "\"command\" is required and must be a string" : "command is empty");
    }
    Duration timeout = DEFAULT_TIMEOUT;
    if (args.hasNonNull("timeout_seconds")) {
      if (!args.get("timeout_seconds").canConvertToInt() || args.get("timeout_seconds").asInt()
          < 1) {
        throw new ToolException("timeout_seconds must be 1 or more");
      }
      timeout = Duration.ofSeconds(Math.min(args.get("timeout_seconds").asInt(),
          MAX_TIMEOUT.toSeconds()));
    }
    if (context.isCancelled()) {
      throw new InterruptedException("cancelled");
    }
    ObjectNode create = params().put("command", "/bin/sh")
        .put("cwd", context.projectDir().toString()).put("outputByteLimit", OUTPUT_BYTES);
    create.putArray("args").add("-c").add(c.asText());
    create.putArray("env");
    String terminal;
    try {
      terminal = answer(session.connection().call("terminal/create", create), ANSWER)
          .path("terminalId").asText("");
    } catch (RpcException e) {
      throw new ToolException("the editor could not start the command: " + e.getMessage());
    }
    if (terminal.isEmpty()) {
      throw new ToolException("the editor started the command but named no terminal");
    }
    session.terminalStarted(terminal);
    try {
      return run(terminal, timeout, context);
    } finally {
      call("terminal/release", terminal);
    }
  }

  private ToolResult run(String terminal, Duration timeout, ToolContext context)
      throws Exception {
    CompletableFuture<JsonNode> exit = session.connection().call("terminal/wait_for_exit",
        params().put("terminalId", terminal));
    boolean timedOut = false;
    JsonNode exited = null;
    try (ToolContext.Registration r = context.onCancel(() -> {
      // on the thread that cancels (the editor's reader, for session/cancel): never wait here
      session.connection().call("terminal/kill", params().put("terminalId", terminal));
      exit.cancel(false);
    })) {
      exited = exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      timedOut = true;
      exit.cancel(false);
      call("terminal/kill", terminal);
    } catch (java.util.concurrent.CancellationException | InterruptedException e) {
      // cancelled: the kill is on its way
    } catch (ExecutionException e) {
      if (!context.isCancelled()) {
        throw new ToolException("the editor's terminal failed: " + e.getCause().getMessage());
      }
    }
    JsonNode output = context.isCancelled() ? GadgetJson.mapper().createObjectNode()
        : answer(session.connection().call("terminal/output", params().put("terminalId",
            terminal)), ANSWER);
    StringBuilder sb = new StringBuilder();
    boolean failed = true;
    if (context.isCancelled()) {
      sb.append("cancelled: the turn was cancelled and the editor's terminal was killed");
    } else if (timedOut) {
      sb.append("timed out after ").append(timeout.toSeconds())
          .append(" s; the editor's terminal was killed");
    } else {
      // the exit as wait_for_exit said it, else as terminal/output says it
      JsonNode status = exited != null && (exited.path("exitCode").canConvertToInt()
          || exited.path("signal").isTextual()) ? exited : output.path("exitStatus");
      if (status.path("exitCode").canConvertToInt()) {
        int code = status.get("exitCode").asInt();
        sb.append("exit code: ").append(code);
        failed = code != 0;
      } else {
        sb.append("ended by signal ").append(status.path("signal").asText("(unknown)"));
      }
    }
    sb.append('\n').append(output.path("output").asText(""));
    if (output.path("truncated").asBoolean(false)) {
      sb.append("\n[output cut: the editor kept the last ").append(OUTPUT_BYTES)
          .append(" bytes]");
    }
    return failed ? ToolResult.error(sb.toString()) : ToolResult.ok(sb.toString());
  }

  private ObjectNode params() {
    return GadgetJson.mapper().createObjectNode().put("sessionId", session.id());
  }

  /** Sends {@code method} for {@code terminal} and waits a bounded time; failures are logged. */
  private void call(String method, String terminal) {
    try {
      answer(session.connection().call(method, params().put("terminalId", terminal)), ANSWER);
    } catch (Exception e) {
      log.debug("{} of terminal {} failed: {}", method, terminal, e.getMessage());
    }
  }

  private static JsonNode answer(CompletableFuture<JsonNode> call, Duration within)
      throws Exception {
    try {
      JsonNode result = call.get(within.toMillis(), TimeUnit.MILLISECONDS);
      return result == null ? GadgetJson.mapper().createObjectNode() : result;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RpcException rpc ? rpc : e;
    } catch (TimeoutException e) {
      call.cancel(false);
      throw new ToolException("the editor did not answer within " + within.toSeconds() + " s");
    }
  }
}
