package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.ContextPruner;
import dev.gadget.core.agent.SummarizingCompactor;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long session under a small context window: the server, the drone, real git and a scripted
 * model whose every request is recorded. Each turn reads a large file; the context is pruned and
 * compacted so that no request goes over the budget, and each turn starts from the compacted
 * history.
 */
class LongSessionTest {
  static final int TURNS = 40;
  static final int FILES = 8;
  static final int WINDOW = 12_000;
  static final int BUDGET = WINDOW - WINDOW / 4; // no maxTokens: the reserve is a quarter

  @TempDir Path tmp;
  RuntimeFixture fx;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  static String file(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      sb.append("file ").append(n).append(" line ").append(i).append(": some content\n");
    }
    return sb.toString(); // about 6,000 characters
  }

  static String prompt(int turn) {
    return "Turn " + turn + ": read f" + (1 + (turn - 1) % FILES) + ".txt and tell me what it "
        + "holds. " + "Keep in mind everything we said before. ".repeat(10);
  }

  static boolean isSummaryRequest(LlmRequest r) {
    return r.tools().isEmpty()
        && r.messages().get(0).content().equals(SummarizingCompactor.INSTRUCTIONS);
  }

  /** The meter's measure of a request with ratio 1: messages and tool definitions. */
  static long measure(LlmRequest r) {
    long tokens = ContextPruner.estimateTokens(r.messages());
    for (ToolDefinition t : r.tools()) {
      tokens += ContextPruner.estimateTokens((long) t.name().length()
          + t.description().length() + t.parameters().toString().length());
    }
    return tokens;
  }

  /** Every tool result answers a call of the assistant message before it, and every call is answered. */
  static void assertPaired(List<LlmMessage> messages) {
    Set<String> open = new HashSet<>();
    for (LlmMessage m : messages) {
      if (m.role() == Role.TOOL) {
        assertThat(open.remove(m.toolCallId())).as("result %s has its call", m.toolCallId())
            .isTrue();
      } else {
        assertThat(open).as("calls answered before the next message").isEmpty();
        for (LlmToolCall c : m.toolCalls()) {
          open.add(c.id());
        }
      }
    }
  }

  @Test
  void fortyTurnsWithLargeReadsStayUnderASmallBudgetByCompaction() throws Exception {
    Path work = tmp.resolve("big-work");
    Files.createDirectories(work);
    RuntimeFixture.git(work, "init", "-q", "-b", "main");
    for (int n = 1; n <= FILES; n++) {
      Files.writeString(work.resolve("f" + n + ".txt"), file(n));
    }
    RuntimeFixture.git(work, "add", ".");
    RuntimeFixture.git(work, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit",
        "-q", "-m", "files");
    Path bare = tmp.resolve("big.git");
    RuntimeFixture.git(tmp, "clone", "-q", "--bare", work.toString(), bare.toString());

    AtomicInteger summaries = new AtomicInteger();
    ScriptedLlmClient llm = ScriptedLlmClient.builder().script(r -> {
      if (isSummaryRequest(r)) {
        return ScriptedLlmClient.reply()
            .text("SUMMARY " + summaries.incrementAndGet() + ": files were read.").build();
      }
      LlmMessage last = r.messages().get(r.messages().size() - 1);
      if (last.role() == Role.USER) {
        String file = last.content().replaceAll("(?s)^Turn \\d+: read (f\\d+\\.txt).*", "$1");
        return ScriptedLlmClient.reply().thinking("I will read " + file + ".")
            .toolCall("read_file", "{\"path\":\"" + file + "\"}").build();
      }
      return ScriptedLlmClient.reply().text("It holds its lines.").build();
    }).build();

    fx = new RuntimeFixture(tmp);
    ProviderConfig small = new ProviderConfig("scripted", "http://127.0.0.1:1", null, "m",
        new ModelParams(null, null, null, null, WINDOW));
    fx.server(b -> b.provider(small));
    Person ada = fx.person("ada");
    fx.drone(ada, tmp.resolve("ws"), llm);
    Page page = fx.page(ada.pageToken()).connected();
    JsonNode project = page.request(Protocol.CREATE_PROJECT,
        Map.of("name", "Big", "slug", "big", "gitUrl", bare.toUri().toString())).get("project");
    String session = page.request(Protocol.CREATE_SESSION,
        Map.of("projectId", project.get("_id").asText(), "name", "Long")).get("session")
        .get("_id").asText();
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    RuntimeFixture.await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());

    List<String> turnIds = new ArrayList<>();
    List<Integer> firstRequestOfTurn = new ArrayList<>();
    for (int t = 1; t <= TURNS; t++) {
      firstRequestOfTurn.add(llm.requests().size());
      JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
          Map.of("sessionId", session, "prompt", prompt(t)));
      assertThat(reply.has("error")).as("submit %s: %s", t, reply).isFalse();
      String id = reply.get("turnId").asText();
      assertThat(page.completion(id).get("status").asText()).as("turn %s", t)
          .isEqualTo("finished");
      turnIds.add(id);
    }

    List<LlmRequest> requests = llm.requests();
    List<LlmRequest> main = requests.stream().filter(r -> !isSummaryRequest(r)).toList();
    assertThat(main).hasSize(2 * TURNS);
    for (LlmRequest r : main) {
      assertThat(measure(r)).as("a request's measured context").isLessThanOrEqualTo(BUDGET);
      assertPaired(r.messages());
      // the first prompt, verbatim, always right after the system prompt
      assertThat(r.messages().get(1).content()).isEqualTo(prompt(1));
    }
    for (int t = 1; t <= TURNS; t++) {
      // the turn's own prompt and its round go verbatim: the file read in full
      LlmRequest last = requests.get(firstRequestOfTurn.get(t - 1) + 1);
      if (isSummaryRequest(last)) {
        last = requests.get(firstRequestOfTurn.get(t - 1) + 2);
      }
      List<LlmMessage> m = last.messages();
      assertThat(m.get(m.size() - 1).content()).isEqualTo(file(1 + (t - 1) % FILES));
      assertThat(m.get(m.size() - 3).content()).isEqualTo(prompt(t));
    }

    // compactions were stored as blocks, each with what it summarized
    List<ChatTurn> turns = fx.store.listTurns(session);
    List<ContextCompaction> compactions = new ArrayList<>();
    int firstCompactingTurn = -1;
    for (int i = 0; i < turns.size(); i++) {
      for (TurnBlock b : turns.get(i).blocks()) {
        if (b instanceof TurnBlock.Compaction c) {
          compactions.add(c.content());
          firstCompactingTurn = firstCompactingTurn < 0 ? i : firstCompactingTurn;
        }
      }
    }
    assertThat(compactions).isNotEmpty();
    assertThat(compactions).hasSize(summaries.get());
    ContextCompaction first = compactions.get(0);
    assertThat(first.summary()).isEqualTo("SUMMARY 1: files were read.");
    assertThat(first.tokensAfter()).isLessThan(first.tokensBefore());
    assertThat(first.summarizedMessages()).isPositive();
    assertThat(first.keptTurnId()).isIn(turnIds);

    // the summary request holds the rounds it summarizes, from the oldest after the first prompt
    LlmRequest summaryRequest = requests.stream().filter(LongSessionTest::isSummaryRequest)
        .findFirst().orElseThrow();
    String transcript = summaryRequest.messages().get(1).content();
    assertThat(transcript).startsWith(SummarizingCompactor.TRANSCRIPT_HEADING
            + "ASSISTANT: \nASSISTANT (reasoning): I will read f1.txt.\n"
            + "ASSISTANT called read_file {\"path\":\"f1.txt\"} [call_1]\n\n"
            + "TOOL RESULT (read_file, call_1): [read_file output for f1.txt elided: a later "
            + "read of this file is further down")
        .contains("USER: " + prompt(2).strip())
        .contains("ASSISTANT called read_file {\"path\":\"f2.txt\"}");
    assertThat(transcript).doesNotContain("USER: " + prompt(1).strip());

    // the turn after the first compaction starts from it: first prompt, summary, then verbatim
    LlmRequest next = requests.get(firstRequestOfTurn.get(firstCompactingTurn + 1));
    assertThat(next.messages().get(1).content()).isEqualTo(prompt(1));
    assertThat(next.messages().get(2).content())
        .startsWith(ContextCompaction.SUMMARY_HEADING + "SUMMARY");
    assertThat(next.messages().stream().map(LlmMessage::content))
        .doesNotContain(prompt(2));
    assertThat(next.messages().get(next.messages().size() - 1).content())
        .isEqualTo(prompt(firstCompactingTurn + 2));

    // the watching page heard each compaction live, its kept turn filled in by the server
    List<JsonNode> heard = page.events.stream().filter(e -> e.name().equals(Protocol.COMPACTION))
        .map(Page.Event::payload).toList();
    assertThat(heard).hasSize(compactions.size());
    assertThat(heard.get(0).at("/compaction/summary").asText())
        .isEqualTo("SUMMARY 1: files were read.");
    assertThat(heard.get(0).at("/compaction/keptTurnId").asText()).isEqualTo(first.keptTurnId());

    // the stats say how full the context was
    for (ChatTurn t : turns) {
      assertThat(t.stats().contextBudget()).isEqualTo(BUDGET);
      assertThat(t.stats().contextTokens()).isBetween(1L, (long) BUDGET);
    }
  }
}
