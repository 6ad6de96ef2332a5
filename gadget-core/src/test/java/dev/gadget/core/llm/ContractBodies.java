package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import java.util.List;

/** Recorded-style bodies that answer an {@link LlmClientContract.Script}. */
final class ContractBodies {
  private ContractBodies() {}

  private static List<String> words(String s) {
    return s.isEmpty() ? List.of() : List.of(s.split("(?<= )"));
  }

  private static ObjectNode object() {
    return GadgetJson.mapper().createObjectNode();
  }

  /** An Ollama NDJSON stream answering with {@code script}. */
  static String ollamaBody(LlmClientContract.Script script) {
    StringBuilder sb = new StringBuilder();
    for (String w : words(script.thinking())) {
      ObjectNode line = object();
      line.putObject("message").put("role", "assistant").put("content", "").put("thinking", w);
      sb.append(line.put("done", false)).append('\n');
    }
    for (String w : words(script.text())) {
      ObjectNode line = object();
      line.putObject("message").put("role", "assistant").put("content", w);
      sb.append(line.put("done", false)).append('\n');
    }
    ObjectNode done = object();
    ObjectNode msg = done.putObject("message").put("role", "assistant").put("content", "");
    if (!script.toolCalls().isEmpty()) {
      ArrayNode calls = msg.putArray("tool_calls");
      for (LlmClientContract.ToolCallSpec t : script.toolCalls()) {
        ObjectNode fn = calls.addObject().putObject("function").put("name", t.name());
        try {
          fn.set("arguments", GadgetJson.mapper().readTree(t.argumentsJson()));
        } catch (Exception e) {
          throw new IllegalArgumentException(e);
        }
      }
    }
    done.put("done", true).put("done_reason", "stop").put("eval_count", 3);
    return sb.append(done).append('\n').toString();
  }

  /** An OpenAI-compatible SSE stream answering with {@code script}. */
  static String openAiBody(LlmClientContract.Script script) {
    StringBuilder sb = new StringBuilder();
    for (String w : words(script.thinking())) {
      ObjectNode chunk = object();
      chunk.putArray("choices").addObject().put("index", 0).putObject("delta")
          .put("reasoning_content", w);
      sb.append("data: ").append(chunk).append("\n\n");
    }
    for (String w : words(script.text())) {
      ObjectNode chunk = object();
      chunk.putArray("choices").addObject().put("index", 0).putObject("delta").put("content", w);
      sb.append("data: ").append(chunk).append("\n\n");
    }
    int i = 0;
    for (LlmClientContract.ToolCallSpec t : script.toolCalls()) {
      String args = t.argumentsJson();
      int half = args.length() / 2;
      ObjectNode first = object();
      ObjectNode call = first.putArray("choices").addObject().put("index", 0).putObject("delta")
          .putArray("tool_calls").addObject().put("index", i).put("id", "call_" + i)
          .put("type", "function");
      call.putObject("function").put("name", t.name()).put("arguments", args.substring(0, half));
      sb.append("data: ").append(first).append("\n\n");
      ObjectNode second = object();
      second.putArray("choices").addObject().put("index", 0).putObject("delta")
          .putArray("tool_calls").addObject().put("index", i).putObject("function")
          .put("arguments", args.substring(half));
      sb.append("data: ").append(second).append("\n\n");
      i++;
    }
    ObjectNode finish = object();
    finish.putArray("choices").addObject().put("index", 0).put("finish_reason",
        script.toolCalls().isEmpty() ? "stop" : "tool_calls").putObject("delta");
    sb.append("data: ").append(finish).append("\n\n");
    sb.append("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\n");
    return sb.append("data: [DONE]\n\n").toString();
  }
}
