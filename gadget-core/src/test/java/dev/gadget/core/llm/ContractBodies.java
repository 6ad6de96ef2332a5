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

  private static String event(ObjectNode data) {
    return "event: " + data.get("type").asText() + "\ndata: " + data + "\n\n";
  }

  /** An Anthropic Messages API SSE stream answering with {@code script}. */
  static String anthropicBody(LlmClientContract.Script script) {
    StringBuilder sb = new StringBuilder();
    ObjectNode start = object().put("type", "message_start");
    start.putObject("message").put("id", "msg_contract").put("role", "assistant")
        .putObject("usage").put("input_tokens", 1).put("output_tokens", 1);
    sb.append(event(start));
    int index = 0;
    if (!script.thinking().isEmpty()) {
      ObjectNode block = object().put("type", "content_block_start").put("index", index);
      block.putObject("content_block").put("type", "thinking").put("thinking", "");
      sb.append(event(block));
      for (String w : words(script.thinking())) {
        ObjectNode delta = object().put("type", "content_block_delta").put("index", index);
        delta.putObject("delta").put("type", "thinking_delta").put("thinking", w);
        sb.append(event(delta));
      }
      ObjectNode sig = object().put("type", "content_block_delta").put("index", index);
      sig.putObject("delta").put("type", "signature_delta").put("signature", "c2lnbmVk");
      sb.append(event(sig)).append(event(object().put("type", "content_block_stop")
          .put("index", index++)));
    }
    if (!script.text().isEmpty()) {
      ObjectNode block = object().put("type", "content_block_start").put("index", index);
      block.putObject("content_block").put("type", "text").put("text", "");
      sb.append(event(block));
      for (String w : words(script.text())) {
        ObjectNode delta = object().put("type", "content_block_delta").put("index", index);
        delta.putObject("delta").put("type", "text_delta").put("text", w);
        sb.append(event(delta));
      }
      sb.append(event(object().put("type", "content_block_stop").put("index", index++)));
    }
    for (LlmClientContract.ToolCallSpec t : script.toolCalls()) {
      ObjectNode block = object().put("type", "content_block_start").put("index", index);
      block.putObject("content_block").put("type", "tool_use").put("id", "toolu_" + index)
          .put("name", t.name()).putObject("input");
      sb.append(event(block));
      String args = t.argumentsJson();
      int half = args.length() / 2;
      for (String part : List.of(args.substring(0, half), args.substring(half))) {
        ObjectNode delta = object().put("type", "content_block_delta").put("index", index);
        delta.putObject("delta").put("type", "input_json_delta").put("partial_json", part);
        sb.append(event(delta));
      }
      sb.append(event(object().put("type", "content_block_stop").put("index", index++)));
    }
    ObjectNode end = object().put("type", "message_delta");
    end.putObject("delta").put("stop_reason",
        script.toolCalls().isEmpty() ? "end_turn" : "tool_use");
    end.putObject("usage").put("output_tokens", 3);
    return sb.append(event(end)).append(event(object().put("type", "message_stop"))).toString();
  }
}
