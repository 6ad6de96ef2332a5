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

  /** One content block: its start, its deltas (each {@code {type, field: piece}}), its stop. */
  private static void block(StringBuilder sb, int index, ObjectNode content,
      List<ObjectNode> deltas) {
    ObjectNode start = object().put("type", "content_block_start").put("index", index);
    start.set("content_block", content);
    sb.append(event(start));
    for (ObjectNode d : deltas) {
      ObjectNode delta = object().put("type", "content_block_delta").put("index", index);
      delta.set("delta", d);
      sb.append(event(delta));
    }
    sb.append(event(object().put("type", "content_block_stop").put("index", index)));
  }

  private static List<ObjectNode> deltas(String type, String field, List<String> pieces) {
    List<ObjectNode> out = new java.util.ArrayList<>();
    for (String p : pieces) {
      out.add(object().put("type", type).put(field, p));
    }
    return out;
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
      List<ObjectNode> d = deltas("thinking_delta", "thinking", words(script.thinking()));
      d.add(object().put("type", "signature_delta").put("signature", "c2lnbmVk"));
      block(sb, index++, object().put("type", "thinking").put("thinking", ""), d);
    }
    if (!script.text().isEmpty()) {
      block(sb, index++, object().put("type", "text").put("text", ""),
          deltas("text_delta", "text", words(script.text())));
    }
    for (LlmClientContract.ToolCallSpec t : script.toolCalls()) {
      ObjectNode use = object().put("type", "tool_use").put("id", "toolu_" + index)
          .put("name", t.name());
      use.putObject("input");
      String args = t.argumentsJson();
      int half = args.length() / 2;
      block(sb, index++, use, deltas("input_json_delta", "partial_json",
          List.of(args.substring(0, half), args.substring(half))));
    }
    ObjectNode end = object().put("type", "message_delta");
    end.putObject("delta").put("stop_reason",
        script.toolCalls().isEmpty() ? "end_turn" : "tool_use");
    end.putObject("usage").put("output_tokens", 3);
    return sb.append(event(end)).append(event(object().put("type", "message_stop"))).toString();
  }

  /** An object schema with one required string property {@code name}. */
  static ObjectNode schema(String name) {
    ObjectNode schema = object().put("type", "object");
    schema.putObject("properties").putObject(name).put("type", "string");
    schema.putArray("required").add(name);
    return schema;
  }

  private static String responsesEvent(String type, ObjectNode data) {
    ObjectNode e = object().put("type", type);
    e.setAll(data);
    return "event: " + type + "\ndata: " + e + "\n\n";
  }

  /** An OpenAI Responses API SSE stream answering with {@code script}. */
  static String responsesBody(LlmClientContract.Script script) {
    StringBuilder sb = new StringBuilder();
    sb.append(responsesEvent("response.created", object().set("response",
        object().put("id", "resp_contract").put("status", "in_progress"))));
    if (!script.thinking().isEmpty()) {
      sb.append(responsesEvent("response.output_item.added", object().set("item",
          object().put("id", "rs_1").put("type", "reasoning"))));
      for (String w : words(script.thinking())) {
        sb.append(responsesEvent("response.reasoning_summary_text.delta",
            object().put("item_id", "rs_1").put("summary_index", 0).put("delta", w)));
      }
    }
    for (String w : words(script.text())) {
      sb.append(responsesEvent("response.output_text.delta",
          object().put("item_id", "msg_1").put("delta", w)));
    }
    int i = 0;
    for (LlmClientContract.ToolCallSpec t : script.toolCalls()) {
      String id = "fc_" + i;
      ObjectNode item = object().put("id", id).put("type", "function_call")
          .put("call_id", "call_" + i).put("name", t.name()).put("arguments", "");
      sb.append(responsesEvent("response.output_item.added", object().set("item", item)));
      String args = t.argumentsJson();
      int half = args.length() / 2;
      for (String piece : List.of(args.substring(0, half), args.substring(half))) {
        sb.append(responsesEvent("response.function_call_arguments.delta",
            object().put("item_id", id).put("delta", piece)));
      }
      sb.append(responsesEvent("response.output_item.done", object().set("item",
          item.deepCopy().put("arguments", args))));
      i++;
    }
    ObjectNode done = object().put("id", "resp_contract").put("status", "completed");
    done.putObject("usage").put("input_tokens", 1).put("output_tokens", 2);
    return sb.append(responsesEvent("response.completed", object().set("response", done)))
        .toString();
  }
}
