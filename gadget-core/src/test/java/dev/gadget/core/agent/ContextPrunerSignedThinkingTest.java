package dev.gadget.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ThinkingBlock;
import dev.gadget.core.model.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pruning rewrites assistant messages (elided tool arguments) but keeps their signed reasoning,
 * which servers such as Anthropic's verify when it comes back.
 */
class ContextPrunerSignedThinkingTest {
  @Test
  void elidingAToolCallsArgumentsKeepsTheMessagesSignedThinking() throws Exception {
    String big = "x".repeat(20_000);
    LlmToolCall write = new LlmToolCall("toolu_1", "write_file", GadgetJson.mapper().readTree(
        "{\"path\":\"a.txt\",\"content\":\"" + big + "\"}"));
    ThinkingBlock signed = ThinkingBlock.signed("Write it.", "sig==");
    LlmMessage assistant = new LlmMessage(Role.ASSISTANT, "", "Write it.", List.of(write), null,
        null, List.of(signed));
    List<LlmMessage> out = new ContextPruner(500).prune(List.of(LlmMessage.system("sys"),
        LlmMessage.user("go"), assistant, LlmMessage.tool(write, "Wrote a.txt")));
    LlmMessage pruned = out.get(2);
    assertThat(pruned.toolCalls().get(0).arguments().get("content").asText())
        .as("the long argument was elided").doesNotContain(big);
    assertThat(pruned.thinkingBlocks()).containsExactly(signed);
  }
}
