package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ModelParams;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestBodiesTest {
  private static JsonNode json(String s) {
    try {
      return GadgetJson.mapper().readTree(s);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static final LlmToolCall CALL =
      new LlmToolCall("call_1", "read_file", json("{\"path\":\"a.txt\"}"));
  private static final LlmRequest REQUEST = new LlmRequest("m",
      List.of(LlmMessage.system("be brief"), LlmMessage.user("read a.txt"),
          LlmMessage.assistant("", "I should read it.", List.of(CALL)),
          LlmMessage.tool(CALL, "hello"),
          LlmMessage.assistant("It says hello.", "Done.", List.of())),
      List.of(new ToolDefinition("read_file", "Reads a file",
          json("{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}"))),
      new ModelParams(0.2, 0.9, 40), true);

  @Test
  void ollamaChatBody() {
    ObjectNode body = RequestBodies.ollama(REQUEST, Map.of("num_ctx", json("32768")),
        Map.of("keep_alive", json("\"5m\"")));
    assertThat(body).isEqualTo(json("""
        {"model":"m","messages":[
          {"role":"system","content":"be brief"},
          {"role":"user","content":"read a.txt"},
          {"role":"assistant","content":"","thinking":"I should read it.",
           "tool_calls":[{"id":"call_1","function":{"name":"read_file","arguments":{"path":"a.txt"}}}]},
          {"role":"tool","content":"hello","tool_call_id":"call_1","tool_name":"read_file"},
          {"role":"assistant","content":"It says hello.","thinking":"Done."}],
         "tools":[{"type":"function","function":{"name":"read_file","description":"Reads a file",
           "parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}],
         "stream":true,"think":true,
         "options":{"temperature":0.2,"top_p":0.9,"top_k":40,"num_ctx":32768},
         "keep_alive":"5m"}
        """));
  }

  @Test
  void openAiChatBody() {
    ObjectNode body = RequestBodies.openAi(REQUEST, true, Map.of("max_tokens", json("100")));
    assertThat(body).isEqualTo(json("""
        {"model":"m","messages":[
          {"role":"system","content":"be brief"},
          {"role":"user","content":"read a.txt"},
          {"role":"assistant","content":null,"reasoning_content":"I should read it.",
           "tool_calls":[{"id":"call_1","type":"function",
             "function":{"name":"read_file","arguments":"{\\"path\\":\\"a.txt\\"}"}}]},
          {"role":"tool","content":"hello","tool_call_id":"call_1"},
          {"role":"assistant","content":"<thinking>Done.</thinking>\\nIt says hello."}],
         "tools":[{"type":"function","function":{"name":"read_file","description":"Reads a file",
           "parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}],
         "stream":true,"stream_options":{"include_usage":true},
         "temperature":0.2,"top_p":0.9,"max_tokens":100}
        """));
  }

  @Test
  void reasoningIsNotSentBackWhenSwitchedOff_andNothingUnsetIsSent() {
    ObjectNode body = RequestBodies.openAi(REQUEST, false, Map.of());
    assertThat(body.get("messages").get(2).has("reasoning_content")).isFalse();
    assertThat(body.at("/messages/2/content").asText())
        .as("with no field for it, reasoning is merged (seed 002)")
        .isEqualTo("<thinking>I should read it.</thinking>\n");
    LlmRequest bare = new LlmRequest("m", List.of(LlmMessage.user("hi")), null, null, null);
    assertThat(RequestBodies.openAi(bare, true, Map.of())).isEqualTo(json(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true}}"));
    assertThat(RequestBodies.ollama(bare, Map.of(), Map.of())).isEqualTo(json(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}"));
  }

  @Test
  void argumentsThatWereNotJsonGoBackAsTheModelWroteThem() {
    LlmToolCall bad = new LlmToolCall("c", "f", GadgetJson.mapper().getNodeFactory().textNode("{oops"));
    LlmRequest r = new LlmRequest("m", List.of(LlmMessage.assistant("", null, List.of(bad)),
        LlmMessage.tool(bad, "error: invalid JSON")), null, null, null);
    assertThat(RequestBodies.openAi(r, true, Map.of()).at("/messages/0/tool_calls/0/function/arguments")
        .asText()).isEqualTo("{oops");
    assertThat(RequestBodies.ollama(r, Map.of(), Map.of()).at("/messages/0/tool_calls/0/function/arguments"))
        .isEqualTo(json("{}"));
  }
}
