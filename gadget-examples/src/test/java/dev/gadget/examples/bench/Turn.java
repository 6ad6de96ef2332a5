package dev.gadget.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.transport.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One slot of {@link LiveLoad}: a session, its drone and its page, one turn at a time. The
 * drone's sends and the page's receipts meet here; every field a send reads is guarded by this.
 */
final class Turn {
  /** Events in a turn: {@link #THINKING} thinking tokens, then response tokens. */
  static final int EVENTS = 1_000;
  static final int THINKING = 200;
  /**
   * Turns in a chat before the page starts a new one: a drone's compaction would keep a real
   * session's history bounded; these drones do not compact, so their sessions stay short.
   */
  static final int TURNS_PER_SESSION = 10;
  static final AtomicLong RECEIVED = new AtomicLong();
  static final AtomicLong COMPLETED = new AtomicLong();
  static final AtomicLong ERRORS = new AtomicLong();
  private static final ScheduledExecutorService RETRY =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "submit-retry");
        t.setDaemon(true);
        return t;
      });
  private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz ";

  private final String project;
  volatile String session;
  private int turnsInSession;
  private final LiveLoad.Latencies latencies;
  private final boolean windowed;
  volatile Connection drone;
  volatile Connection page;
  private String turnId;
  /** The next seq to send; EVENTS once all are sent. */
  private int next;
  private boolean ended;
  /** Paced: how many events this slot may send now (fractions carried over). */
  private double credit;
  private final long[] sentAt = new long[EVENTS];

  Turn(String project, String session, LiveLoad.Latencies latencies, boolean windowed) {
    this.project = project;
    this.session = session;
    this.latencies = latencies;
    this.windowed = windowed;
  }

  /** The page asks for the next turn. */
  void submitNext() {
    submit(0);
  }

  /**
   * Submits the prompt; a drone that registered a moment after its page connected is given up
   * to 5 s (a "no drone" refusal is asked again every 50 ms).
   */
  private void submit(int attempt) {
    page.emitWithAck("submitPrompt", List.of(LiveLoad.JSON.createObjectNode()
        .put("sessionId", session).put("prompt", "go on")), Duration.ofSeconds(60))
        .whenComplete((reply, error) -> {
          boolean refused = error == null && reply.get(0).hasNonNull("error");
          if (refused && attempt < 100 && reply.get(0).get("error").asText().contains("drone")) {
            RETRY.schedule(() -> submit(attempt + 1), 50, TimeUnit.MILLISECONDS);
          } else if (error != null || refused) {
            ERRORS.incrementAndGet();
            System.err.println("submit refused: " + (error != null ? error : reply));
          }
        });
  }

  /** The drone got the work order of {@code id}. */
  void start(String id) {
    synchronized (this) {
      turnId = id;
      next = 0;
      ended = false;
      credit = 0;
      if (windowed) {
        sendUpTo(WINDOW_START);
      }
    }
  }

  private static final int WINDOW_START = LiveLoad.WINDOW;

  /** Paced: one millisecond's worth of credit. */
  synchronized void tick(double perTick) {
    if (turnId == null || next >= EVENTS) {
      return;
    }
    credit += perTick;
    int n = (int) credit;
    credit -= n;
    sendUpTo(next + n);
  }

  /** The page received event {@code seq} of the running turn. */
  void received(long seq) {
    long now = System.nanoTime();
    RECEIVED.incrementAndGet();
    synchronized (this) {
      if (seq >= 0 && seq < EVENTS) {
        latencies.add(now - sentAt[(int) seq]);
      }
      if (windowed) {
        sendUpTo((int) seq + 1 + LiveLoad.WINDOW);
      }
    }
  }

  /** The page saw the turn end: the next prompt, in a new chat every few turns. */
  void ended() {
    COMPLETED.incrementAndGet();
    if (++turnsInSession < TURNS_PER_SESSION) {
      submitNext();
      return;
    }
    turnsInSession = 0;
    Duration wait = Duration.ofSeconds(60);
    page.emitWithAck("unwatchSession", List.of(LiveLoad.JSON.createObjectNode()
        .put("sessionId", session)), wait)
        .thenCompose(r -> page.emitWithAck("createSession", List.of(LiveLoad.JSON
            .createObjectNode().put("projectId", project).put("name", "bench")), wait))
        .thenCompose(r -> {
          session = r.get(0).get("session").get("_id").asText();
          return page.emitWithAck("watchSession", List.of(LiveLoad.JSON.createObjectNode()
              .put("sessionId", session)), wait);
        })
        .whenComplete((r, e) -> {
          if (e != null) {
            ERRORS.incrementAndGet();
            System.err.println("new chat failed: " + e);
          } else {
            submitNext();
          }
        });
  }

  /** Sends events up to (not including) {@code until}; after the last, the turn's end. */
  private void sendUpTo(int until) {
    int end = Math.min(until, EVENTS);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (next < end) {
      int seq = next++;
      StringBuilder token = new StringBuilder();
      for (int i = 1 + random.nextInt(8); i > 0; i--) {
        token.append(LETTERS.charAt(random.nextInt(LETTERS.length())));
      }
      ObjectNode event = LiveLoad.JSON.createObjectNode().put("turnId", turnId).put("seq", seq)
          .put("data", token.toString());
      sentAt[seq] = System.nanoTime();
      drone.emit(seq < THINKING ? "thinking" : "response", List.<JsonNode>of(event));
    }
    if (next == EVENTS && !ended) {
      ended = true;
      drone.emitWithAck("workOrderComplete", List.of(LiveLoad.JSON.createObjectNode()
          .put("turnId", turnId).put("seq", EVENTS).put("status", "finished")),
          Duration.ofSeconds(60)).whenComplete((r, e) -> {
            if (e != null) {
              ERRORS.incrementAndGet();
              System.err.println("workOrderComplete not acknowledged: " + e);
            }
          });
    }
  }
}
