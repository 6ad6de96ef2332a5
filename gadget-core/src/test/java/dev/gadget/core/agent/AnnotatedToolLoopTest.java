package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.AgentHttpClientsTest.ReplayServer;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.agent.tools.annotations.MethodTools;
import dev.gadget.core.agent.tools.annotations.ToolMethod;
import dev.gadget.core.agent.tools.annotations.ToolParam;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agent-loop turns in which the model calls tools made from annotated methods. */
class AnnotatedToolLoopTest {
  enum Order { LONGEST_FIRST, SHORTEST_FIRST }

  record Query(@ToolParam("Files to count, relative to the project") List<String> paths,
               Optional<Order> order) {}

  record Count(String path, long lines) {}

  /** An application's own tool: counts lines, confined to the project like the built-in ones. */
  static class LineCounter {
    @ToolMethod("Counts the lines of files in the project")
    List<Count> countLines(@ToolParam("What to count") Query query, ToolContext context)
        throws IOException {
      List<Count> counts = new ArrayList<>();
      for (String p : query.paths()) {
        Path file = context.resolve(p);
        if (!Files.isRegularFile(file)) {
          throw new ToolException(p + " is not a file");
        }
        counts.add(new Count(p, Files.readAllLines(file).size()));
      }
      if (query.order().isPresent()) {
        counts.sort((a, b) -> Long.compare(a.lines(), b.lines())
            * (query.order().get() == Order.LONGEST_FIRST ? -1 : 1));
      }
      return counts;
    }
  }

  @TempDir Path tmp;
  TestRepo repo;

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "a.txt", "1\n2\n3\n", "b.txt", "1\n", "c.txt", "1\n2\n");
  }

  private AgentOutcome run(AgentLoop loop, RecordingListener listener) throws Exception {
    return loop.start(AgentRequest.builder(repo.dir(), "m", "Which file is longest?").build(),
        listener).outcome().get(30, TimeUnit.SECONDS);
  }

  @Test
  void theModelCallsTheAnnotatedToolAndReadsItsResultOrItsMistakeInPlainWords()
      throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("count_lines", "{\"query\":{\"paths\":[\"a.txt\",\"b.txt\"],"
            + "\"order\":\"longest\"}}").build(),
        reply().toolCall("count_lines",
            "{\"query\":{\"paths\":[\"a.txt\",\"b.txt\",\"c.txt\"],\"order\":\"longest_first\"}}")
            .build(),
        reply().toolCall("count_lines", "{\"query\":{\"paths\":[\"../outside.txt\"]}}").build(),
        reply().text("a.txt is the longest, with 3 lines.").build());
    List<Tool> tools = new ArrayList<>(CodingTools.readOnly());
    tools.addAll(MethodTools.from(new LineCounter()));
    RecordingListener listener = new RecordingListener();

    AgentOutcome outcome = run(AgentLoop.builder().llmClient(llm).tools(tools).build(), listener);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.text()).isEqualTo("a.txt is the longest, with 3 lines.");
    ToolDefinition offered = llm.requests().get(0).tools().stream()
        .filter(d -> d.name().equals("count_lines")).findFirst().orElseThrow();
    assertThat(offered.description()).isEqualTo("Counts the lines of files in the project");
    assertThat(offered.parameters().at("/properties/query/properties/order/enum"))
        .hasToString("[\"LONGEST_FIRST\",\"SHORTEST_FIRST\"]");
    assertThat(offered.parameters().at("/required")).hasToString("[\"query\"]");
    assertThat(outcome.toolCalls()).extracting(ToolCall::response).containsExactly(
        "Error: argument \"query.order\" must be one of \"LONGEST_FIRST\", \"SHORTEST_FIRST\" "
            + "(got \"longest\")",
        "[{\"path\":\"a.txt\",\"lines\":3},{\"path\":\"c.txt\",\"lines\":2},"
            + "{\"path\":\"b.txt\",\"lines\":1}]",
        "Error: path refused: \"../outside.txt\" contains \"..\"; paths must stay inside "
            + "the project directory");
    assertThat(listener.events).containsSubsequence("end count_lines failed",
        "end count_lines ok", "end count_lines failed", "complete FINISHED");
    List<LlmMessage> last = llm.requests().get(3).messages();
    assertThat(last.get(last.size() - 1).role()).isEqualTo(Role.TOOL);
    assertThat(last.get(last.size() - 1).content()).startsWith("Error: path refused: ");
  }

  @Test
  void overOpenAiStreamsTheSchemaIsSentAndTheStreamedArgumentsAreBound() throws Exception {
    try (ReplayServer server = new ReplayServer()) {
      server.contentType = "text/event-stream";
      server.bodies.add(sse(
          "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,"
              + "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"count_lines\","
              + "\"arguments\":\"{\\\"query\\\":{\\\"pa\"}}]},\"finish_reason\":null}",
          "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
              + "\"ths\\\":[\\\"c.txt\\\"]}}\"}}]},\"finish_reason\":null}",
          "{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}"));
      server.bodies.add(sse(
          "{\"index\":0,\"delta\":{\"content\":\"c.txt has 2 lines.\"},\"finish_reason\":null}",
          "{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}"));
      AgentLoop loop = AgentLoop.builder()
          .llmClient(OpenAiClient.builder().baseUrl(server.baseUrl() + "/v1").apiKey("sk-test")
              .build())
          .tools(MethodTools.from(new LineCounter()))
          .build();

      AgentOutcome outcome = run(loop, new RecordingListener());

      assertThat(outcome.status()).as(String.valueOf(outcome.message()))
          .isEqualTo(AgentOutcome.Status.FINISHED);
      assertThat(outcome.text()).isEqualTo("c.txt has 2 lines.");
      JsonNode tool = server.requests.get(0).get("tools").get(0);
      assertThat(tool.at("/function/name").asText()).isEqualTo("count_lines");
      assertThat(tool.at("/function/parameters")).isEqualTo(
          MethodTools.from(new LineCounter()).get(0).parameters());
      assertThat(tool.at("/function/parameters/properties/query/properties/paths/description")
          .asText()).isEqualTo("Files to count, relative to the project");
      JsonNode result = server.requests.get(1).get("messages").get(3);
      assertThat(result.get("tool_call_id").asText()).isEqualTo("call_1");
      assertThat(GadgetJson.mapper().readTree(result.get("content").asText()))
          .isEqualTo(GadgetJson.mapper().readTree("[{\"path\":\"c.txt\",\"lines\":2}]"));
    }
  }

  private static String sse(String... chunks) {
    StringBuilder sb = new StringBuilder();
    for (String c : chunks) {
      sb.append("data: {\"id\":\"r1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
          + "\"model\":\"gpt-4o-mini\",\"choices\":[").append(c).append("]}\n\n");
    }
    return sb.append("data: [DONE]\n\n").toString();
  }
}
