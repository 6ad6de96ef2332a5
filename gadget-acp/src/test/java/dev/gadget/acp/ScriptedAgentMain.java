package dev.gadget.acp;

import dev.gadget.core.agent.AgentLimits;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.agent.SummarizingCompactor;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.Role;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The ACP agent with a scripted model, run by the tests as a subprocess:
 * {@code ScriptedAgentMain [approval-policy]}. The prompt picks the script: {@code edit} plans,
 * reads {@code hello.txt}, replaces "Hello" with "Hi", completes the plan and answers;
 * {@code work} plans, reads {@code hello.txt}, replaces "Hello" with "Hi", runs {@code cat hello.txt},
 * completes the plan and answers with what the command printed;
 * {@code run <command>} runs a command and says what it printed; {@code mcp <text>} calls the
 * {@code everything} MCP server's echo tool; {@code slow} streams a long
 * answer; {@code big <word>} answers with 600 words; {@code recall} lists the user messages the
 * model was given before the prompt; {@code model} names the model it was asked as; {@code loop}
 * lists the project until a limit stops it, {@code repeat} the same way each time; anything else is echoed. A compactor's summary request is
 * answered {@code SUMMARY of N messages}. The environment: {@code ACP_SESSIONS} the sessions
 * directory (none: in memory), {@code ACP_CONTEXT_BUDGET} the turn's context budget in tokens,
 * {@code ACP_NO_EDITOR_TERMINAL} (any value) keeps commands out of the editor's terminal,
 * {@code ACP_MAX_ROUND_TRIPS} the turn's most model round trips.
 */
public final class ScriptedAgentMain {
  private ScriptedAgentMain() {}

  public static void main(String[] args) throws Exception {
    ApprovalPolicy policy = ApprovalPolicy.fromWireName(args.length > 0 ? args[0] : "never");
    ScriptedLlmClient llm = ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(2))
        .script(ScriptedAgentMain::reply).build();
    String sessions = System.getenv("ACP_SESSIONS");
    String budget = System.getenv("ACP_CONTEXT_BUDGET");
    String trips = System.getenv("ACP_MAX_ROUND_TRIPS");
    AgentLimits limits = budget == null ? AgentLimits.DEFAULTS
        : AgentLimits.DEFAULTS.withContextTokenBudget(Integer.parseInt(budget));
    AcpAgent.builder().llmClient(llm).model("scripted-test").approvalPolicy(policy)
        .sessionsDirectory(sessions == null ? null : Path.of(sessions))
        .editorTerminal(System.getenv("ACP_NO_EDITOR_TERMINAL") == null)
        .limits(trips == null ? limits : limits.withMaxRoundTrips(Integer.parseInt(trips)))
        .maxMessageBytes(64 * 1024).build().serve(System.in, wire(System.out));
  }

  /**
   * Standard output, and a copy of every byte in the file {@code ACP_WIRE_LOG} names: what the
   * agent sent, in the order it sent it (the SDK's client may hand notifications over out of
   * order).
   */
  private static OutputStream wire(OutputStream out) throws IOException {
    String log = System.getenv("ACP_WIRE_LOG");
    if (log == null) {
      return out;
    }
    OutputStream copy = new FileOutputStream(log);
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        copy.write(b, off, len);
        out.write(b, off, len);
      }

      @Override
      public void flush() throws IOException {
        copy.flush();
        out.flush();
      }
    };
  }

  static ScriptedLlmClient.Reply reply(LlmRequest request) {
    List<LlmMessage> messages = request.messages();
    if (messages.get(0).content().equals(SummarizingCompactor.INSTRUCTIONS)) {
      return ScriptedLlmClient.reply().text("SUMMARY of " + (messages.size() - 1) + " messages")
          .build();
    }
    int lastUser = 0;
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).role() == Role.USER) {
        lastUser = i;
      }
    }
    String prompt = messages.get(lastUser).content().strip();
    int step = 0;
    String lastResult = "";
    for (int i = lastUser + 1; i < messages.size(); i++) {
      if (messages.get(i).role() == Role.TOOL) {
        step++;
        lastResult = messages.get(i).content();
      }
    }
    if (prompt.equals("edit")) {
      switch (step) {
        case 0:
          return ScriptedLlmClient.reply().thinking("Planning the change.")
              .toolCall("update_plan", "{\"plan\":[{\"step\":\"Read hello.txt\",\"status\":"
                  + "\"in_progress\"},{\"step\":\"Say Hi\",\"status\":\"pending\"}]}").build();
        case 1:
          return ScriptedLlmClient.reply().toolCall("read_file", "{\"path\":\"hello.txt\"}")
              .build();
        case 2:
          return ScriptedLlmClient.reply().toolCall("edit_file", "{\"path\":\"hello.txt\","
              + "\"old_text\":\"Hello\",\"new_text\":\"Hi\"}").build();
        case 3:
          return ScriptedLlmClient.reply().toolCall("update_plan", "{\"plan\":[{\"step\":"
              + "\"Read hello.txt\",\"status\":\"completed\"},{\"step\":\"Say Hi\",\"status\":"
              + "\"completed\"}]}").build();
        default:
          return ScriptedLlmClient.reply().text("hello.txt now says Hi.").build();
      }
    }
    if (prompt.equals("work")) {
      return work(step, lastResult);
    }
    if (prompt.equals("model")) {
      return ScriptedLlmClient.reply().text("Asked as " + request.model()).build();
    }
    if (prompt.equals("loop")) {
      // a different directory each time: the round-trip limit ends it, not the repeat limit
      return ScriptedLlmClient.reply().toolCall("list_dir", "{\"path\":\"."
          + "/.".repeat(step) + "\"}").build();
    }
    if (prompt.equals("cut")) {
      return ScriptedLlmClient.reply().text("The answer is cut at the mod")
          .finishReason(FinishReason.LENGTH).build();
    }
    if (prompt.equals("refuse")) {
      return ScriptedLlmClient.reply().text("I cannot help with that.")
          .finishReason(FinishReason.CONTENT_FILTER).build();
    }
    if (prompt.equals("repeat")) {
      return ScriptedLlmClient.reply().toolCall("list_dir", "{\"path\":\".\"}").build();
    }
    if (prompt.startsWith("run ")) {
      return step == 0
          ? ScriptedLlmClient.reply().toolCall("run_command", "{\"command\":\""
              + prompt.substring(4).replace("\"", "\\\"") + "\"}").build()
          : ScriptedLlmClient.reply().text("The command said: " + lastResult.strip()).build();
    }
    if (prompt.startsWith("mcp ")) {
      return step == 0
          ? ScriptedLlmClient.reply().toolCall("everything__echo", "{\"message\":\""
              + prompt.substring(4) + "\"}").build()
          : ScriptedLlmClient.reply().text("The MCP server said: " + lastResult.strip()).build();
    }
    if (prompt.startsWith("big ")) {
      return ScriptedLlmClient.reply().text((prompt.substring(4) + " ").repeat(600)).build();
    }
    if (prompt.equals("recall")) {
      StringBuilder seen = new StringBuilder("I was given:");
      for (int i = 1; i < lastUser; i++) {
        if (messages.get(i).role() == Role.USER) {
          String m = messages.get(i).content();
          seen.append(" [").append(m.length() > 100 ? m.substring(0, 100) : m).append("]");
        }
      }
      return ScriptedLlmClient.reply().text(seen.toString()).build();
    }
    if (prompt.equals("slow")) {
      return ScriptedLlmClient.reply().text("word ".repeat(5000)).build();
    }
    return ScriptedLlmClient.reply().text("You said: " + prompt).build();
  }

  private static ScriptedLlmClient.Reply work(int step, String lastResult) {
    switch (step) {
      case 0:
        return ScriptedLlmClient.reply().thinking("Planning the change.")
            .toolCall("update_plan", "{\"plan\":[{\"step\":\"Read hello.txt\",\"status\":"
                + "\"in_progress\"},{\"step\":\"Say Hi\",\"status\":\"pending\"},{\"step\":"
                + "\"Check\",\"status\":\"pending\"}]}").build();
      case 1:
        return ScriptedLlmClient.reply().toolCall("read_file", "{\"path\":\"hello.txt\"}")
            .build();
      case 2:
        return ScriptedLlmClient.reply().toolCall("edit_file", "{\"path\":\"hello.txt\","
            + "\"old_text\":\"Hello\",\"new_text\":\"Hi\"}").build();
      case 3:
        return ScriptedLlmClient.reply().toolCall("run_command",
            "{\"command\":\"cat hello.txt\"}").build();
      case 4:
        return ScriptedLlmClient.reply().text("cat said: " + lastResult.strip() + ".")
            .toolCall("update_plan", "{\"plan\":[{\"step\":\"Read hello.txt\",\"status\":"
                + "\"completed\"},{\"step\":\"Say Hi\",\"status\":\"completed\"},{\"step\":"
                + "\"Check\",\"status\":\"completed\"}]}").build();
      default:
        return ScriptedLlmClient.reply().text(" Done.").build();
    }
  }
}
