package dev.gadget.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One slot of {@link RawLoad}: a chat, its drone and its page, one turn at a time, on the
 * load's one thread. The page watches the chat and submits a prompt; the drone accepts the work
 * order and streams {@link #EVENTS} events of 1-8 characters (thinking, then response; or, with
 * tools, 10 thinking and responding blocks with 3 tool calls between them), then ends the turn; the page submits the next prompt when it sees the end, in a new chat every
 * {@link #TURNS_PER_SESSION} turns.
 */
final class RawTurn {
  /** Events in a turn: {@link #THINKING} thinking tokens, then response tokens. */
  static final int EVENTS = 1_000;
  static final int THINKING = 200;
  /**
   * Turns in a chat before the page starts a new one: a drone's compaction would keep a real
   * session's history bounded; these drones do not compact, so their sessions stay short.
   */
  static final int TURNS_PER_SESSION = 10;
  /** Events a drone may send ahead of what its page received, unpaced. */
  static final int WINDOW = 64;
  /** 4,096 tokens of 1-8 letters, made once; a turn's tokens are drawn from them. */
  private static final byte[][] TOKENS = tokens();

  /** With tools: the events a tool call takes the place of (3 in a turn). */
  static final int[] TOOL_CALLS = {250, 500, 750};
  /** With tools: events in each of a turn's 10 thinking and responding blocks. */
  static final int BLOCK = 100;

  private final RawLoad load;
  private final boolean tools;
  private final String project;
  private String session;
  private int turnsInSession;
  final RawSocket drone;
  final RawSocket page;
  private final Map<Long, Consumer<JsonNode>> droneAcks = new HashMap<>();
  private final Map<Long, Consumer<JsonNode>> pageAcks = new HashMap<>();
  /** {@code ["thinking",{"turnId":"…","seq":} and its response twin, for the running turn. */
  private byte[] thinkingHead;
  private byte[] responseHead;
  private String turnId;
  private final byte[] scratch = new byte[512];
  private int next = EVENTS;
  private boolean ended = true;
  private double credit;
  private final long[] sentAt = new long[EVENTS];
  private int tokenCursor;

  /**
   * A slot's drone and page connect to {@code port}, or each to its own node's when the slot
   * says ({@code dronePort}, {@code pagePort}: ClusterBenchmark spreads them over the nodes).
   */
  RawTurn(RawLoad load, JsonNode slot, int port) throws IOException {
    this.load = load;
    this.project = slot.get("project").asText();
    this.tools = slot.path("tools").asBoolean(false);
    this.session = slot.get("session").asText();
    this.tokenCursor = slot.get("user").asText().hashCode() & (TOKENS.length - 1);
    String user = RawLoad.JSON.writeValueAsString(slot.get("user").asText());
    String droneAuth = "{\"token\":" + RawLoad.JSON.writeValueAsString(slot.get("droneToken")
        .asText()) + ",\"user\":" + user + ",\"workspaceId\":" + RawLoad.JSON.writeValueAsString(
        "bench-" + slot.get("user").asText()) + ",\"hostname\":\"bench\",\"workspaceDir\":\"/bench\"}";
    String pageAuth = "{\"token\":" + RawLoad.JSON.writeValueAsString(slot.get("pageToken")
        .asText()) + ",\"user\":" + user + "}";
    drone = new RawSocket(load, slot.path("dronePort").asInt(port), "/drone", droneAuth,
        new RawSocket.Listener() {
      @Override
      public void onConnected(RawSocket socket) {
        load.connected();
      }

      @Override
      public void onPacket(RawSocket s, char type, long ackId, byte[] a, int from, int to) {
        droneEvent(type, ackId, a, from, to);
      }
    });
    page = new RawSocket(load, slot.path("pagePort").asInt(port), "/", pageAuth,
        new RawSocket.Listener() {
      @Override
      public void onConnected(RawSocket socket) {
        ask(page, pageAcks, "watchSession", "{\"sessionId\":\"" + session + "\"}",
            r -> load.connected());
      }

      @Override
      public void onPacket(RawSocket s, char type, long ackId, byte[] a, int from, int to) {
        pageEvent(type, ackId, a, from, to);
      }
    });
  }

  /** The page asks for the next turn; a "no drone" refusal is asked again every 50 ms. */
  void submit(int attempt) {
    ask(page, pageAcks, "submitPrompt", "{\"sessionId\":\"" + session
        + "\",\"prompt\":\"go on\"}", reply -> {
          JsonNode error = reply.get(0).get("error");
          if (error != null && attempt < 100 && error.asText().contains("drone")) {
            load.later(50, () -> submit(attempt + 1));
          } else if (error != null) {
            load.error("submit refused: " + reply);
          }
        });
  }

  private void droneEvent(char type, long ackId, byte[] a, int from, int to) {
    if (type == '3') {
      answered(droneAcks, ackId, a, from, to);
    } else if (is(a, from, to, "[\"processWorkOrder\"")) {
      JsonNode order = parse(a, from, to).get(1);
      byte[] accepted = "[{\"accepted\":true}]".getBytes(StandardCharsets.US_ASCII);
      if (ackId >= 0) { // a work order broadcast to a room (the Node cluster) asks no answer
        drone.send('3', ackId, accepted, 0, accepted.length);
      }
      start(order.get("workOrder").get("chatTurn").get("_id").asText());
    }
  }

  private void pageEvent(char type, long ackId, byte[] a, int from, int to) {
    if (type == '3') {
      answered(pageAcks, ackId, a, from, to);
    } else if (is(a, from, to, "[\"thinking\"") || is(a, from, to, "[\"response\"")
        || tools && is(a, from, to, "[\"toolCall\"")) {
      received(seq(a, from, to));
    } else if (is(a, from, to, "[\"workOrderComplete\"")) {
      ended();
    }
  }

  private void start(String turnId) {
    this.turnId = turnId;
    thinkingHead = ("[\"thinking\",{\"turnId\":\"" + turnId + "\",\"seq\":")
        .getBytes(StandardCharsets.UTF_8);
    responseHead = ("[\"response\",{\"turnId\":\"" + turnId + "\",\"seq\":")
        .getBytes(StandardCharsets.UTF_8);
    next = 0;
    ended = false;
    credit = 0;
    if (!load.paced()) {
      sendUpTo(WINDOW);
    }
  }

  /** Paced: {@code events} more events' worth of credit (fractions carried over). */
  void tick(double events) {
    if (next >= EVENTS) {
      return;
    }
    credit += events;
    int n = (int) credit;
    credit -= n;
    sendUpTo(next + n);
  }

  private void received(int seq) {
    long now = System.nanoTime();
    if (seq >= 0 && seq < EVENTS) {
      load.received(now - sentAt[seq]);
    }
    if (!load.paced()) {
      sendUpTo(seq + 1 + WINDOW);
    }
  }

  private void ended() {
    load.completed();
    if (++turnsInSession < TURNS_PER_SESSION) {
      submit(0);
      return;
    }
    turnsInSession = 0;
    ask(page, pageAcks, "unwatchSession", "{\"sessionId\":\"" + session + "\"}",
        r -> ask(page, pageAcks, "createSession", "{\"projectId\":\"" + project
            + "\",\"name\":\"bench\"}", created -> {
              session = created.get(0).get("session").get("_id").asText();
              ask(page, pageAcks, "watchSession", "{\"sessionId\":\"" + session + "\"}",
                  watched -> submit(0));
            }));
  }

  /** Queues events up to (not including) {@code until}; after the last, the turn's end. */
  private void sendUpTo(int until) {
    int end = Math.min(until, EVENTS);
    while (next < end) {
      int seq = next++;
      if (tools && java.util.Arrays.binarySearch(TOOL_CALLS, seq) >= 0) {
        byte[] call = ("[\"toolCall\",{\"turnId\":\"" + turnId + "\",\"seq\":" + seq
            + ",\"call\":{\"callId\":\"c" + seq + "\",\"name\":\"read_file\",\"parameters\":"
            + "\"{\\\"path\\\":\\\"README.md\\\"}\",\"response\":\"# bench\",\"durationMs\":3}}]")
            .getBytes(StandardCharsets.UTF_8);
        sentAt[seq] = System.nanoTime();
        drone.send('2', -1, call, 0, call.length);
        drone.flush();
        continue;
      }
      byte[] head = tools ? ((seq / BLOCK) % 2 == 0 ? thinkingHead : responseHead)
          : seq < THINKING ? thinkingHead : responseHead;
      byte[] token = TOKENS[tokenCursor++ & (TOKENS.length - 1)];
      int n = head.length;
      System.arraycopy(head, 0, scratch, 0, n);
      n = digits(seq, n);
      n = ascii(",\"data\":\"", n);
      System.arraycopy(token, 0, scratch, n, token.length);
      n += token.length;
      n = ascii("\"}]", n);
      sentAt[seq] = System.nanoTime();
      drone.send('2', -1, scratch, 0, n);
      drone.flush(); // a drone writes each chunk as the model streams it
    }
    if (next == EVENTS && !ended) {
      ended = true;
      ask(drone, droneAcks, "workOrderComplete", "{\"turnId\":\"" + turnId + "\",\"seq\":"
          + EVENTS + ",\"status\":\"finished\"}", reply -> {
            if (reply.get(0).has("error")) {
              load.error("workOrderComplete refused: " + reply);
            }
          });
    }
  }

  private int digits(int value, int at) {
    int end = value >= 10 ? digits(value / 10, at) : at;
    scratch[end] = (byte) ('0' + value % 10);
    return end + 1;
  }

  private int ascii(String s, int at) {
    for (int i = 0; i < s.length(); i++) {
      scratch[at++] = (byte) s.charAt(i);
    }
    return at;
  }

  private void ask(RawSocket socket, Map<Long, Consumer<JsonNode>> acks, String event,
      String payload, Consumer<JsonNode> then) {
    long id = socket.nextAckId();
    acks.put(id, then);
    byte[] json = ("[\"" + event + "\"," + payload + "]").getBytes(StandardCharsets.UTF_8);
    socket.send('2', id, json, 0, json.length);
  }

  private void answered(Map<Long, Consumer<JsonNode>> acks, long id, byte[] a, int from, int to) {
    Consumer<JsonNode> then = acks.remove(id);
    if (then == null) {
      load.error("an acknowledgement nobody asked for: " + id);
    } else {
      then.accept(parse(a, from, to));
    }
  }

  private static JsonNode parse(byte[] a, int from, int to) {
    try {
      return RawLoad.JSON.readTree(a, from, to - from);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean is(byte[] a, int from, int to, String head) {
    if (to - from < head.length()) {
      return false;
    }
    for (int i = 0; i < head.length(); i++) {
      if (a[from + i] != head.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** The value of the first {@code "seq":} in the packet, -1 without one. */
  private static int seq(byte[] a, int from, int to) {
    for (int i = from; i + 6 < to; i++) {
      if (a[i] == '"' && a[i + 1] == 's' && a[i + 2] == 'e' && a[i + 3] == 'q'
          && a[i + 4] == '"' && a[i + 5] == ':') {
        int v = 0;
        for (int j = i + 6; j < to && a[j] >= '0' && a[j] <= '9'; j++) {
          v = v * 10 + (a[j] - '0');
        }
        return v;
      }
    }
    return -1;
  }

  private static byte[][] tokens() {
    java.util.Random random = new java.util.Random(22);
    String letters = "abcdefghijklmnopqrstuvwxyz ";
    byte[][] tokens = new byte[4096][];
    for (int t = 0; t < tokens.length; t++) {
      byte[] token = new byte[1 + random.nextInt(8)];
      for (int i = 0; i < token.length; i++) {
        token[i] = (byte) letters.charAt(random.nextInt(letters.length()));
      }
      tokens[t] = token;
    }
    return tokens;
  }
}
