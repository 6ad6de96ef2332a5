package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.tools.ReadFileTool;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ProviderStore;
import dev.gadget.core.store.InMemoryChatStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that takes its time: the live stream reaches the pages without waiting for it, a page
 * that joins meanwhile sees the blocks still waiting to be written, and the turn's end is
 * announced (and acknowledged to the drone) only once everything is stored.
 */
class SlowStoreTest {
  @TempDir Path tmp;
  RuntimeFixture fx;
  final CountDownLatch storeOpen = new CountDownLatch(1);
  final AtomicInteger blockWritesStarted = new AtomicInteger();
  /** When set, the next read of a session's turns waits until {@link #listsOpen}. */
  final java.util.concurrent.atomic.AtomicBoolean stallNextList =
      new java.util.concurrent.atomic.AtomicBoolean();
  final CountDownLatch listsOpen = new CountDownLatch(1);
  final AtomicInteger listsStalled = new AtomicInteger();
  final AtomicInteger lists = new AtomicInteger();
  /** When set, the next turn created waits until {@link #createsOpen}. */
  final java.util.concurrent.atomic.AtomicBoolean stallNextCreate =
      new java.util.concurrent.atomic.AtomicBoolean();
  final CountDownLatch createsOpen = new CountDownLatch(1);
  final AtomicInteger createsStalled = new AtomicInteger();

  @AfterEach
  void tearDown() {
    storeOpen.countDown();
    listsOpen.countDown();
    createsOpen.countDown();
    if (fx != null) {
      fx.close();
    }
  }

  /**
   * An in-memory store whose block writes wait until {@link #storeOpen} (a disk that stalls),
   * whose next read of a session's turns waits until {@link #listsOpen} when {@link
   * #stallNextList} is set, and whose next new turn waits until {@link #createsOpen} when {@link
   * #stallNextCreate} is: a real store behind a gate, every other call straight through.
   */
  private ChatStore gated(InMemoryChatStore inner) {
    return (ChatStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {ChatStore.class, ProviderStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("appendBlock") || method.getName().equals("saveBlock")) {
            blockWritesStarted.incrementAndGet();
            assertThat(storeOpen.await(20, TimeUnit.SECONDS)).as("the test opens the store")
                .isTrue();
          }
          if (method.getName().equals("createTurn") && stallNextCreate.compareAndSet(true, false)) {
            createsStalled.incrementAndGet();
            assertThat(createsOpen.await(20, TimeUnit.SECONDS)).as("the test opens the writes")
                .isTrue();
          }
          if (method.getName().equals("listTurns")) {
            lists.incrementAndGet();
            if (stallNextList.compareAndSet(true, false)) {
              listsStalled.incrementAndGet();
              assertThat(listsOpen.await(20, TimeUnit.SECONDS)).as("the test opens the reads")
                  .isTrue();
            }
          }
          try {
            return method.invoke(inner, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  private record Ada(Person person, Page page) {}

  /**
   * A server on {@code inner} behind the gates, ada's drone answering {@code thinking} then
   * {@code answer}, and ada's page, connected.
   */
  private Ada ada(InMemoryChatStore inner, String thinking, String answer) throws Exception {
    return ada(inner, ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().thinking(thinking).text(answer).build()).build());
  }

  /** As above, ada's drone answering as {@code llm} does. */
  private Ada ada(InMemoryChatStore inner, ScriptedLlmClient llm) throws Exception {
    fx = new RuntimeFixture(tmp, inner);
    fx.server(b -> b.store(gated(inner)));
    Person ada = fx.person("ada");
    fx.drone(ada, tmp.resolve("ws"), llm, b -> b.ackTimeout(Duration.ofSeconds(20)));
    Page page = fx.page(ada.pageToken()).connected();
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    return new Ada(ada, page);
  }

  @Test
  void aStalledStoreDelaysNeitherTheStreamNorAJoiningPageOnlyTheTurnsEnd() throws Exception {
    InMemoryChatStore inner = new InMemoryChatStore();
    String thinking = "Let me think about the greeting.";
    String answer = "Hello there, ".repeat(20) + "the end.";
    Ada a = ada(inner, thinking, answer);
    Page page = a.page();
    Person ada = a.person();
    String session = fx.watchedSession(page);

    String turn = page.submit(session, "say hello");
    // every token reaches the page while the store has written no block of the turn
    await("the whole answer streamed", () -> text(page, turn, Protocol.RESPONSE).equals(answer));
    assertThat(text(page, turn, Protocol.THINKING)).isEqualTo(thinking);
    await("a block write waiting on the store", () -> blockWritesStarted.get() > 0);
    assertThat(inner.findTurn(turn).orElseThrow().blocks()).isEmpty();

    // a page that starts watching now gets both blocks, once each: the stored turn with the
    // blocks still waiting to be written, and the open block if the drone's end is not in yet
    Page late = fx.page(ada.pageToken()).connected();
    JsonNode snapshot = late.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    JsonNode stored = snapshot.get("turns").get(0);
    assertThat(stored.get("status").asText()).isEqualTo("processing");
    Map<Integer, String> blocks = new java.util.TreeMap<>();
    stored.get("blocks").forEach(b -> blocks.put(b.get("seq").asInt(), b.get("mode").asText()
        + ":" + b.get("content").asText()));
    JsonNode live = snapshot.get("live").get(0);
    assertThat(live.get("turnId").asText()).isEqualTo(turn);
    JsonNode open = live.path("openBlock");
    if (open.isObject()) {
      blocks.put(open.get("seq").asInt(), open.get("mode").asText() + ":"
          + open.get("content").asText());
    }
    assertThat(blocks.values()).containsExactly("thinking:" + thinking, "responding:" + answer);

    // the end is announced only after the blocks and the end are stored
    assertThat(page.eventsOf(turn)).noneMatch(e -> e.name().equals(Protocol.WORK_ORDER_COMPLETE));
    storeOpen.countDown();
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(late.completion(turn).get("status").asText()).isEqualTo("finished");
    ChatTurn done = inner.findTurn(turn).orElseThrow();
    assertThat(done.blocks()).extracting(b -> b instanceof TurnBlock.Thinking t ? t.content()
        : ((TurnBlock.Responding) b).content()).containsExactly(thinking, answer);
    assertThat(done.status().name()).isEqualTo("FINISHED");
  }

  @Test
  void aPageHearsOfAToolCallOnlyOnceTheTextBeforeItIsStored() throws Exception {
    InMemoryChatStore inner = new InMemoryChatStore();
    String before = "Let me read it first.";
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text(before)
            .toolCall(ReadFileTool.NAME, "{\"path\":\"missing.txt\"}").build())
        .reply(ScriptedLlmClient.reply().text("Done.").build()).build();
    Page page = ada(inner, llm).page();
    String session = fx.watchedSession(page);
    // how many of the turn's blocks the store held when the page heard of the call
    java.util.concurrent.CompletableFuture<Integer> storedAtCall =
        new java.util.concurrent.CompletableFuture<>();
    page.connection.on(Protocol.TOOL_CALL, (args, ack) -> storedAtCall.complete(inner.findTurn(
        args.get(0).get("turnId").asText()).orElseThrow().blocks().size()));

    String turn = page.submit(session, "read missing.txt");
    await("the text streamed", () -> text(page, turn, Protocol.RESPONSE).equals(before));
    await("the drone asked the model again after the call", () -> llm.requests().size() == 2);
    assertThat(storedAtCall).as("the call, told while the store holds nothing").isNotDone();
    storeOpen.countDown();
    assertThat(storedAtCall.get(20, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(1);
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(text(page, turn, Protocol.RESPONSE)).isEqualTo(before + "Done.");
  }

  @Test
  void aPageWhoseSnapshotWaitsOnTheStoreHoldsUpNoStreamAndSeesTheTurnOnce() throws Exception {
    storeOpen.countDown(); // writes go straight through; reads of turns stall below
    String thinking = "Thinking it over.";
    String answer = "Hello again, ".repeat(20) + "done.";
    Ada a = ada(new InMemoryChatStore(), thinking, answer);
    Page page = a.page();
    Person ada = a.person();
    String session = fx.watchedSession(page);

    // a second page starts watching; its read of the session's turns stalls
    stallNextList.set(true);
    Page late = fx.page(ada.pageToken()).connected();
    java.util.concurrent.CompletableFuture<JsonNode> snapshot =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> {
          try {
            return late.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    await("the late page's read stalls on the store", () -> listsStalled.get() > 0);

    // meanwhile the first page's turn streams through to its end
    String turn = page.submit(session, "say hello again");
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(text(page, turn, Protocol.THINKING)).isEqualTo(thinking);
    assertThat(text(page, turn, Protocol.RESPONSE)).isEqualTo(answer);
    assertThat(snapshot).isNotDone();

    // the read that began before the turn is read again: the late page sees the turn once,
    // whole, in its snapshot, and no stream event of it afterwards
    listsOpen.countDown();
    JsonNode turns = snapshot.get(20, TimeUnit.SECONDS).get("turns");
    // the first page's, the submit's history, the stalled one, the one again
    assertThat(lists.get()).isGreaterThanOrEqualTo(4);
    assertThat(turns).hasSize(1);
    assertThat(turns.get(0).get("status").asText()).isEqualTo("finished");
    assertThat(turns.get(0).get("blocks")).extracting(b -> b.get("content").asText())
        .containsExactly(thinking, answer);
    assertThat(late.eventsOf(turn)).noneMatch(e -> e.name().equals(Protocol.THINKING)
        || e.name().equals(Protocol.RESPONSE));
  }

  @Test
  void aPromptWhoseTurnWaitsOnTheStoreHoldsUpNoOtherChatsPrompt() throws Exception {
    storeOpen.countDown();
    Ada a = ada(new InMemoryChatStore(), "Thinking.", "Hello from ada.");
    Page adaPage = a.page();
    String adaSession = fx.watchedSession(adaPage);
    Person bob = fx.person("bob");
    fx.drone(bob, tmp.resolve("ws-bob"), ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("Hello from bob.").build()).build(),
        b -> b.ackTimeout(Duration.ofSeconds(20)));
    Page bobPage = fx.page(bob.pageToken()).connected();
    await("bob's drone registered", () -> !fx.store.listDrones(bob.user().id()).isEmpty());
    String bobSession = fx.watchedSession(bobPage);

    // ada's new turn waits on the store as it is written
    stallNextCreate.set(true);
    java.util.concurrent.CompletableFuture<String> adaTurn =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> {
          try {
            return adaPage.submit(adaSession, "say hello");
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    await("ada's turn waits on the store", () -> createsStalled.get() > 0);

    // meanwhile bob's prompt is taken and his turn streams to its end
    String bobTurn = bobPage.submit(bobSession, "say hello");
    assertThat(bobPage.completion(bobTurn).get("status").asText()).isEqualTo("finished");
    // and ada's chat counts as busy: a second prompt there (from another page of hers: one
    // page's requests are handled one at a time) is refused
    Page adaOther = fx.page(a.person().pageToken()).connected();
    JsonNode again = adaOther.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", adaSession, "prompt", "say it again"));
    assertThat(again.path("error").asText()).contains("already running");
    assertThat(adaTurn).isNotDone();

    createsOpen.countDown();
    String adaTurnId = adaTurn.get(20, TimeUnit.SECONDS);
    assertThat(adaPage.completion(adaTurnId).get("status").asText()).isEqualTo("finished");
    assertThat(text(adaPage, adaTurnId, Protocol.RESPONSE)).isEqualTo("Hello from ada.");
  }

  private static String text(Page page, String turn, String event) {
    StringBuilder sb = new StringBuilder();
    page.eventsOf(turn).stream().filter(e -> e.name().equals(event))
        .forEach(e -> sb.append(e.payload().get("data").asText()));
    return sb.toString();
  }
}
