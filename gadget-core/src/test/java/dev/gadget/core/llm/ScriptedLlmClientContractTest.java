package dev.gadget.core.llm;

import java.time.Duration;

/** {@link ScriptedLlmClient} passes the {@link LlmClientContract}. */
class ScriptedLlmClientContractTest extends LlmClientContract {
  @Override
  protected LlmClient clientAnswering(Script script, int times) {
    ScriptedLlmClient.Builder b = ScriptedLlmClient.builder();
    for (int i = 0; i < times; i++) {
      ScriptedLlmClient.Reply.Builder r = ScriptedLlmClient.reply();
      if (!script.thinking().isEmpty()) {
        r.thinking(script.thinking());
      }
      if (!script.text().isEmpty()) {
        r.text(script.text());
      }
      script.toolCalls().forEach(t -> r.toolCall(t.name(), t.argumentsJson()));
      b.reply(r.build());
    }
    return b.build();
  }

  @Override
  protected LlmClient clientThatNeverFinishes() {
    return ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("word ".repeat(100_000)).build())
        .tokenDelay(Duration.ofMillis(2)).build();
  }
}
