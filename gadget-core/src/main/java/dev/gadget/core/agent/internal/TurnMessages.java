package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.SystemPrompt;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ChatMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The conversation a turn opens with, as seed 002 says: the system prompt, the session's earlier
 * messages, the user's prompt and the messages of an interrupted turn to resume.
 */
public final class TurnMessages {
  private static final String HISTORY_TOOL_PREFIX = "[Tool result from an earlier turn]\n";

  private TurnMessages() {}

  /**
   * The first messages of {@code request}'s turn, in a new mutable list.
   *
   * @param projectDir the project directory, symbolic links resolved
   * @param tools the tools offered to the model
   */
  public static List<LlmMessage> opening(SystemPrompt systemPrompt, AgentRequest request,
      Path projectDir, List<ToolDefinition> tools) {
    List<LlmMessage> messages = new ArrayList<>();
    messages.add(LlmMessage.system(systemPrompt.build(request, projectDir, tools)));
    messages.addAll(sessionContext(request.context()));
    messages.add(LlmMessage.user(request.prompt()));
    messages.addAll(request.resume());
    return messages;
  }

  /** Converts a session's earlier messages into the model's, as seed 002 says. */
  public static List<LlmMessage> sessionContext(List<ChatMessage> context) {
    List<LlmMessage> out = new ArrayList<>();
    for (ChatMessage m : context) {
      switch (m.role()) {
        case SYSTEM:
          break; // seed 002: earlier system prompts are not replayed
        case USER:
          out.add(LlmMessage.user(m.content()));
          break;
        case ASSISTANT:
          out.add(LlmMessage.assistant(m.content(), null, List.of()));
          break;
        case TOOL:
          // A stored tool result has no call id to pair it with, so it cannot be sent as a tool
          // message; it goes as a note the model can read.
          out.add(LlmMessage.user(HISTORY_TOOL_PREFIX + m.content()));
          break;
        default:
          throw new IllegalStateException("role " + m.role());
      }
    }
    return out;
  }
}
