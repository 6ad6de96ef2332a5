package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.SystemPrompt;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.internal.Json;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The conversation a turn opens with, as seed 002 says: the system prompt, the session's earlier
 * messages, the user's prompt and the messages of an interrupted turn to resume.
 */
public final class TurnMessages {
  private static final String HISTORY_TOOL_PREFIX = "[Tool result from an earlier turn]\n";
  /** What the model reads for an earlier call that has no result in the context. */
  public static final String NO_RESULT = "(no result: the turn ended before this tool finished)";

  private TurnMessages() {}

  /**
   * The first messages of {@code request}'s turn, in a new mutable list.
   *
   * @param projectDir the project directory, symbolic links resolved
   * @param tools the tools offered to the model
   */
  public static List<LlmMessage> opening(SystemPrompt systemPrompt, AgentRequest request,
      Path projectDir, List<ToolDefinition> tools) {
    return opening(systemPrompt, request, projectDir, tools, CommandSandbox.none(),
        new IdentityHashMap<>());
  }

  /**
   * The same with commands run in {@code sandbox} (which the system prompt may say), recording in
   * {@code origins} the turn each message of the session's context comes from, where the
   * context says it.
   */
  static List<LlmMessage> opening(SystemPrompt systemPrompt, AgentRequest request,
      Path projectDir, List<ToolDefinition> tools, CommandSandbox sandbox,
      Map<LlmMessage, String> origins) {
    List<LlmMessage> messages = new ArrayList<>();
    messages.add(LlmMessage.system(systemPrompt.build(request, projectDir, tools, sandbox)));
    messages.addAll(sessionContext(request.context(), origins));
    messages.add(LlmMessage.user(request.prompt()));
    messages.addAll(request.resume());
    return messages;
  }

  /**
   * Converts a session's earlier messages into the model's, as seed 002 says: user prompts as
   * they are; assistant replies with their reasoning (each client sends it the way its provider
   * takes it) and tool calls; each tool result answering its call by id. A call with no result in
   * the context gets {@link #NO_RESULT}; a result whose call is not right before it (a context
   * written before calls were stored) goes as a user note.
   */
  public static List<LlmMessage> sessionContext(List<ChatMessage> context) {
    return sessionContext(context, new IdentityHashMap<>());
  }

  private static List<LlmMessage> sessionContext(List<ChatMessage> context,
      Map<LlmMessage, String> origins) {
    List<LlmMessage> out = new ArrayList<>();
    Set<String> open = new LinkedHashSet<>();
    for (ChatMessage m : context) {
      if (m.role() != Role.TOOL) {
        answerOpen(out, open, origins);
      }
      switch (m.role()) {
        case SYSTEM:
          break; // seed 002: earlier system prompts are not replayed
        case USER:
          out.add(LlmMessage.user(m.content()));
          origin(out, origins, m.turnId());
          break;
        case ASSISTANT:
          List<LlmToolCall> calls = new ArrayList<>();
          for (ToolCall c : m.toolCalls()) {
            calls.add(new LlmToolCall(c.callId(), c.name(), Json.arguments(c.parameters())));
            open.add(c.callId());
          }
          // signed reasoning goes back as it came; each client sends only its provider's
          out.add(new LlmMessage(Role.ASSISTANT, m.content(), m.thinking(), calls, null, null,
              SignedReasoningBlocks.blocks(m.reasoning())));
          origin(out, origins, m.turnId());
          break;
        case TOOL:
          if (m.toolCallId() != null && open.remove(m.toolCallId())) {
            out.add(new LlmMessage(Role.TOOL, m.content(), null, List.of(), m.toolCallId(),
                m.toolName()));
          } else {
            // no call to pair it with: it goes as a note the model can read
            out.add(LlmMessage.user(HISTORY_TOOL_PREFIX + m.content()));
          }
          origin(out, origins, m.turnId());
          break;
        default:
          throw new IllegalStateException("role " + m.role());
      }
    }
    answerOpen(out, open, origins);
    return out;
  }

  private static void origin(List<LlmMessage> out, Map<LlmMessage, String> origins,
      String turnId) {
    if (turnId != null) {
      origins.put(out.get(out.size() - 1), turnId);
    }
  }

  private static void answerOpen(List<LlmMessage> out, Set<String> open,
      Map<LlmMessage, String> origins) {
    for (String id : open) {
      String name = null;
      String turn = null;
      for (int i = out.size() - 1; i >= 0 && name == null; i--) {
        for (LlmToolCall c : out.get(i).toolCalls()) {
          if (c.id().equals(id)) {
            name = c.name();
            turn = origins.get(out.get(i));
          }
        }
      }
      out.add(new LlmMessage(Role.TOOL, NO_RESULT, null, List.of(), id, name));
      origin(out, origins, turn);
    }
    open.clear();
  }
}
