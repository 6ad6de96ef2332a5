package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ThinkingBlock;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Messages API request body: system, blocks, tool results, thinking and max_tokens. */
class AnthropicRequestsTest {
  private static JsonNode json(String s) {
    try {
      return GadgetJson.mapper().readTree(s);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static final LlmToolCall READ_A =
      new LlmToolCall("toolu_a", "read_file", json("{\"path\":\"a.txt\"}"));
  private static final LlmToolCall READ_B =
      new LlmToolCall("toolu_b", "read_file", json("{\"path\":\"b.txt\"}"));
  private static final ToolDefinition READ = new ToolDefinition("read_file", "Reads a file",
      json("{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}"));

  @Test
  void anotherProvidersReasoningNeverGoesToAnthropicItsTextIsMergedInstead() {
    ThinkingBlock openAi = new ThinkingBlock("Plan.", null,
        "{\"type\":\"reasoning\",\"summary\":[],\"encrypted_content\":\"gAAA\"}");
    assertThat(openAi.provider()).isEqualTo(ThinkingBlock.OPENAI_RESPONSES);
    LlmMessage earlier = new LlmMessage(Role.ASSISTANT, "Done.", "Plan.", List.of(), null, null,
        List.of(openAi));
    ObjectNode body = AnthropicRequests.body(LlmRequest.builder("claude-sonnet-4-5", List.of(
        LlmMessage.user("Go"), earlier, LlmMessage.user("Again"))).build(), 8192, 0, Map.of());
    assertThat(body.get("messages").get(1)).isEqualTo(json("""
        {"role":"assistant","content":[{"type":"text",
          "text":"<thinking>Plan.</thinking>\\nDone."}]}"""));
  }

  @Test
  void aToolTurnWithSignedThinking() {
    LlmCompletion reply = new LlmCompletion("Reading both.", "Read them.", List.of(READ_A, READ_B),
        null, FinishReason.TOOL_CALLS,
        List.of(ThinkingBlock.signed("Read them.", "sig=="), ThinkingBlock.redacted("enc")),
        "tool_use");
    LlmRequest r = LlmRequest.builder("claude-sonnet-4-5", List.of(
            LlmMessage.system("You are terse."), LlmMessage.system("Project: demo."),
            LlmMessage.user("Compare a and b"),
            LlmMessage.assistant(reply),
            LlmMessage.tool(READ_A, "A"), LlmMessage.tool(READ_B, "B"),
            LlmMessage.user("and be quick")))
        .tools(List.of(READ)).params(new ModelParams(null, 0.95, 40, 2000))
        .thinkingBudget(1500).build();
    ObjectNode body = AnthropicRequests.body(r, 8192, 0, Map.of("metadata",
        json("{\"user_id\":\"u1\"}")));
    assertThat(body).isEqualTo(json("""
        {"model":"claude-sonnet-4-5","max_tokens":2000,
         "system":"You are terse.\\n\\nProject: demo.",
         "messages":[
          {"role":"user","content":"Compare a and b"},
          {"role":"assistant","content":[
            {"type":"thinking","thinking":"Read them.","signature":"sig=="},
            {"type":"redacted_thinking","data":"enc"},
            {"type":"text","text":"Reading both."},
            {"type":"tool_use","id":"toolu_a","name":"read_file","input":{"path":"a.txt"}},
            {"type":"tool_use","id":"toolu_b","name":"read_file","input":{"path":"b.txt"}}]},
          {"role":"user","content":[
            {"type":"tool_result","tool_use_id":"toolu_a","content":"A"},
            {"type":"tool_result","tool_use_id":"toolu_b","content":"B"},
            {"type":"text","text":"and be quick"}]}],
         "tools":[{"name":"read_file","description":"Reads a file",
           "input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}],
         "stream":true,
         "thinking":{"type":"enabled","budget_tokens":1500},
         "top_p":0.95,"top_k":40,
         "metadata":{"user_id":"u1"}}
        """));
  }

  @Test
  void unsignedReasoningIsMergedAsSeed002SaysAndEmptyAssistantMessagesAreLeftOut() {
    LlmRequest r = new LlmRequest("m", List.of(LlmMessage.user("hi"),
        LlmMessage.assistant("", "thought from another provider", List.of()),
        LlmMessage.assistant("", null, List.of()),
        LlmMessage.user("again"),
        LlmMessage.assistant("Hello", "unsigned thought", List.of())), null,
        new ModelParams(0.3, null, null), false);
    ObjectNode body = AnthropicRequests.body(r, 1024, 4096, Map.of());
    assertThat(body.get("messages")).isEqualTo(json("""
        [{"role":"user","content":"hi"},
         {"role":"assistant","content":[
           {"type":"text","text":"<thinking>thought from another provider</thinking>\\n"}]},
         {"role":"user","content":"again"},
         {"role":"assistant","content":[
           {"type":"text","text":"<thinking>unsigned thought</thinking>\\nHello"}]}]"""));
    assertThat(body.has("thinking")).as("think=false wins over the client's budget").isFalse();
    assertThat(body.has("system")).isFalse();
    assertThat(body.get("max_tokens").asInt()).isEqualTo(1024);
    assertThat(body.get("temperature").asDouble()).isEqualTo(0.3);
  }

  @Test
  void thinkingBudgets() {
    List<LlmMessage> hi = List.of(LlmMessage.user("hi"));
    // nothing asked, no client budget: no thinking
    assertThat(AnthropicRequests.body(new LlmRequest("m", hi, null, null, null), 8192, 0,
        Map.of()).has("thinking")).isFalse();
    // nothing asked, a client budget: on with it
    ObjectNode byClient = AnthropicRequests.body(new LlmRequest("m", hi, null, null, null),
        8192, 2048, Map.of());
    assertThat(byClient.at("/thinking/budget_tokens").asInt()).isEqualTo(2048);
    // asked without a budget: the client's, at least the API's minimum
    assertThat(AnthropicRequests.body(new LlmRequest("m", hi, null, null, true), 8192, 0,
        Map.of()).at("/thinking/budget_tokens").asInt()).isEqualTo(1024);
    // a level
    ObjectNode high = AnthropicRequests.body(LlmRequest.builder("m", hi).thinkLevel("high")
        .build(), 8192, 0, Map.of());
    assertThat(high.at("/thinking/budget_tokens").asInt()).isEqualTo(16384);
    assertThat(high.get("max_tokens").asInt())
        .as("a default max_tokens below the budget is raised by it").isEqualTo(16384 + 8192);
  }

  @Test
  void aToolTurnWithoutSignedThinkingContinuesWithoutThinking() {
    // such as a turn resumed after a crash: the API would refuse thinking on
    List<LlmMessage> resumed = List.of(LlmMessage.user("Compare a and b"),
        LlmMessage.assistant("", "lost its signature", List.of(READ_A)),
        LlmMessage.tool(READ_A, "A"));
    assertThat(AnthropicRequests.body(new LlmRequest("m", resumed, null, null, true), 8192, 2048,
        Map.of()).has("thinking")).isFalse();
    LlmCompletion signed = new LlmCompletion("", "t", List.of(READ_A), null,
        FinishReason.TOOL_CALLS, List.of(ThinkingBlock.signed("t", "s")), "tool_use");
    List<LlmMessage> live = List.of(LlmMessage.user("Compare a and b"),
        LlmMessage.assistant(signed), LlmMessage.tool(READ_A, "A"));
    assertThat(AnthropicRequests.body(new LlmRequest("m", live, null, null, true), 8192, 2048,
        Map.of()).has("thinking")).isTrue();
    List<LlmMessage> nextPrompt = new java.util.ArrayList<>(resumed);
    nextPrompt.add(LlmMessage.assistant("Done.", null, List.of()));
    nextPrompt.add(LlmMessage.user("Now c"));
    assertThat(AnthropicRequests.body(new LlmRequest("m", nextPrompt, null, null, true), 8192,
        2048, Map.of()).has("thinking")).as("a new user turn may think again").isTrue();
  }
}
