package dev.gadget.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.stream.StreamChunk;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider's refusal of a request as too long: one compaction, one retry, through the real
 * {@link OpenAiClient} against a server replaying recorded-style replies.
 */
class AgentCompactionTest {
  static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  static final String REFUSAL = "{\"error\":{\"message\":\"This model's maximum context length "
      + "is 8192 tokens. However, your messages resulted in 9100 tokens. Please reduce the "
      + "length of the messages.\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
      + "\"code\":\"context_length_exceeded\"}}";

  @TempDir Path tmp;
  LlmTestServer llm = LlmTestServer.start();

  @AfterEach
  void tearDown() {
    llm.close();
  }

  static String sse(String text) {
    return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text + "\"},"
        + "\"finish_reason\":null}]}\n\n"
        + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
        + "data: [DONE]\n\n";
  }

  /** Two earlier turns: the first read a file. */
  static List<ChatMessage> history() {
    ToolCall read = new ToolCall("call_old", "read_file", "{\"path\":\"a.txt\"}", null);
    return List.of(
        new ChatMessage(T, Role.USER, "first", null, List.of(), null, null, "t1", null),
        new ChatMessage(T, Role.ASSISTANT, "", "Read it.", List.of(read), null, null, "t1", null),
        new ChatMessage(T, Role.TOOL, "A".repeat(3000), null, List.of(), "call_old", "read_file",
            "t1", null),
        new ChatMessage(T, Role.ASSISTANT, "It is all A.", null, List.of(), null, null, "t1",
            null),
        new ChatMessage(T, Role.USER, "second", null, List.of(), null, null, "t2", null),
        new ChatMessage(T, Role.ASSISTANT, "Noted.", null, List.of(), null, null, "t2", null));
  }

  AgentOutcome run(RecordingListener listener) throws Exception {
    TestRepo repo = TestRepo.create(tmp, "a.txt", "A");
    return AgentLoop.builder()
        .llmClient(OpenAiClient.builder().baseUrl(llm.v1().toString()).apiKey("sk-test").build())
        .build()
        .start(AgentRequest.builder(repo.dir(), "gpt-x", "third").context(history()).build(),
            listener)
        .outcome().get(20, TimeUnit.SECONDS);
  }

  @Test
  void aContextLengthRefusalCompactsOnceAndRetriesOnce() throws Exception {
    llm.enqueue(400, REFUSAL).header("Content-Type", "application/json");
    llm.enqueue(sse("They read a.txt: all A.")).header("Content-Type", "text/event-stream");
    llm.enqueue(sse("Done.")).header("Content-Type", "text/event-stream");
    RecordingListener listener = new RecordingListener();

    AgentOutcome outcome = run(listener);

    assertThat(outcome.status()).as(String.valueOf(outcome.message()))
        .isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.text()).isEqualTo("Done.");
    JsonNode refused = llm.takeRequest().json();
    JsonNode summary = llm.takeRequest().json();
    JsonNode retry = llm.takeRequest().json();
    assertThat(llm.requestCount()).isEqualTo(3);
    // the summary request: no tools, the instructions, the rounds it summarizes
    assertThat(summary.has("tools")).isFalse();
    assertThat(summary.at("/messages/0/content").asText())
        .isEqualTo(SummarizingCompactor.INSTRUCTIONS);
    assertThat(summary.at("/messages/1/content").asText())
        .contains("ASSISTANT called read_file {\"path\":\"a.txt\"} [call_old]")
        .contains("TOOL RESULT (read_file, call_old): AAAA")
        .doesNotContain("USER: first").doesNotContain("USER: third");
    // the retry: the first prompt, the summary, then the rest verbatim; no orphaned result
    assertThat(refused.get("messages")).hasSize(8);
    JsonNode m = retry.get("messages");
    assertThat(m.get(1).get("content").asText()).isEqualTo("first");
    assertThat(m.get(2).get("content").asText())
        .isEqualTo(ContextCompaction.SUMMARY_HEADING + "They read a.txt: all A.");
    assertThat(m.get(3).get("content").asText()).isEqualTo("It is all A.");
    assertThat(m.get(m.size() - 1).get("content").asText()).isEqualTo("third");
    assertThat(retry.toString()).doesNotContain("call_old");
    // the listener heard of the compaction; the summary itself never streamed as the reply
    List<ContextCompaction> compactions = listener.chunks.stream()
        .filter(c -> c instanceof StreamChunk.CompactionChunk)
        .map(c -> ((StreamChunk.CompactionChunk) c).compaction()).toList();
    assertThat(compactions).hasSize(1);
    ContextCompaction c = compactions.get(0);
    assertThat(c.summarizedMessages()).isEqualTo(2);
    assertThat(c.keptTurnId()).isEqualTo("t1");
    assertThat(c.keptAfterCallId()).isEqualTo("call_old");
    assertThat(c.promptRepeated()).isFalse();
    assertThat(c.tokensAfter()).isLessThan(c.tokensBefore());
    assertThat(listener.responseText()).isEqualTo("Done.");
  }

  @Test
  void aSecondRefusalEndsTheTurnWithoutAnotherCompaction() throws Exception {
    llm.enqueue(400, REFUSAL).header("Content-Type", "application/json");
    llm.enqueue(sse("A summary.")).header("Content-Type", "text/event-stream");
    llm.enqueue(400, REFUSAL).header("Content-Type", "application/json");

    AgentOutcome outcome = run(new RecordingListener());

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.ERROR);
    assertThat(outcome.message()).contains("maximum context length");
    assertThat(llm.requestCount()).isEqualTo(3);
  }
}
