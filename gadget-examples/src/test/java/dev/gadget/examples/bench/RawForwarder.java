package dev.gadget.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.java_websocket.WebSocket;
import org.java_websocket.exceptions.WebsocketNotConnectedException;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;

/**
 * The floor under any server built on Java-WebSocket: a bare Java-WebSocket server that speaks
 * just enough Socket.IO for {@link RawLoad} (the relay.js protocol) and forwards a drone's stream
 * event to its chat's pages by cutting and joining strings: no Socket.IO library, no JSON tree,
 * no store, no aggregation, no bounds. A benchmark's yardstick, not something to serve with.
 */
final class RawForwarder extends WebSocketServer {
  private static final String DRONE = "/drone,";
  private final Map<String, WebSocket> drones = new ConcurrentHashMap<>();
  private final Map<WebSocket, String> pageUsers = new ConcurrentHashMap<>();
  private final Map<String, Set<WebSocket>> rooms = new ConcurrentHashMap<>();
  private final Map<String, String> sessionOf = new ConcurrentHashMap<>();
  private final AtomicLong ackIds = new AtomicLong();
  private final java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);

  RawForwarder() {
    super(new InetSocketAddress("127.0.0.1", 0));
    setTcpNoDelay(true);
    setReuseAddr(true);
  }

  @Override
  public void onOpen(WebSocket conn, ClientHandshake handshake) {
    conn.send("0{\"sid\":\"" + UUID.randomUUID() + "\",\"upgrades\":[],\"pingInterval\":25000,"
        + "\"pingTimeout\":20000,\"maxPayload\":1000000}");
  }

  @Override
  public void onMessage(WebSocket conn, String m) {
    try {
      dispatch(conn, m);
    } catch (WebsocketNotConnectedException e) {
      // the peer it goes to closed meanwhile (the run is ending): nothing is left to relay to
    }
  }

  private void dispatch(WebSocket conn, String m) {
    if (m.startsWith("42" + DRONE)) {
      droneEvent(conn, m.substring(2 + DRONE.length()));
    } else if (m.startsWith("40" + DRONE)) {
      drones.put(user(m.substring(2 + DRONE.length())), conn);
      conn.send("40" + DRONE + "{\"sid\":\"" + UUID.randomUUID() + "\"}");
    } else if (m.startsWith("40")) {
      pageUsers.put(conn, user(m.substring(2)));
      conn.send("40{\"sid\":\"" + UUID.randomUUID() + "\"}");
    } else if (m.startsWith("42")) {
      pageEvent(conn, m.substring(2));
    }
  }

  private void droneEvent(WebSocket drone, String packet) {
    if (packet.startsWith("[\"thinking\"") || packet.startsWith("[\"response\"")) {
      int from = packet.indexOf("\"turnId\":\"") + 10;
      String session = sessionOf.get(packet.substring(from, packet.indexOf('"', from)));
      if (session != null) {
        String out = "42" + packet;
        for (WebSocket page : rooms.getOrDefault(session, Set.of())) {
          send(page, out);
        }
      }
      return;
    }
    int bracket = packet.indexOf('[');
    String id = packet.substring(0, bracket);
    JsonNode event = tree(packet.substring(bracket));
    if ("workOrderComplete".equals(event.get(0).asText())) {
      String session = sessionOf.remove(event.get(1).get("turnId").asText());
      if (session != null) {
        for (WebSocket page : rooms.getOrDefault(session, Set.of())) {
          send(page, "42[\"workOrderComplete\"," + event.get(1) + "]");
        }
      }
      drone.send("43" + DRONE + id + "[{\"ok\":true}]");
    }
  }

  private void pageEvent(WebSocket page, String packet) {
    int bracket = packet.indexOf('[');
    String id = packet.substring(0, bracket);
    JsonNode event = tree(packet.substring(bracket));
    String session = event.get(1).path("sessionId").asText();
    String reply = switch (event.get(0).asText()) {
      case "watchSession" -> {
        rooms.computeIfAbsent(session, s -> ConcurrentHashMap.newKeySet()).add(page);
        yield "{\"sessionId\":\"" + session + "\",\"turns\":[],\"live\":[]}";
      }
      case "unwatchSession" -> {
        rooms.getOrDefault(session, ConcurrentHashMap.newKeySet()).remove(page);
        yield "{\"ok\":true}";
      }
      case "createSession" -> "{\"session\":{\"_id\":\"" + UUID.randomUUID() + "\"}}";
      case "submitPrompt" -> {
        WebSocket drone = drones.get(pageUsers.get(page));
        if (drone == null) {
          yield "{\"error\":\"no drone\"}";
        }
        String turnId = UUID.randomUUID().toString();
        sessionOf.put(turnId, session);
        drone.send("42" + DRONE + ackIds.incrementAndGet() + "[\"processWorkOrder\","
            + "{\"workOrder\":{\"_id\":\"" + turnId + "\",\"chatSession\":{\"_id\":\"" + session
            + "\"},\"chatTurn\":{\"_id\":\"" + turnId + "\"}},\"firstSeq\":0,\"resume\":false}]");
        yield "{\"turnId\":\"" + turnId + "\"}";
      }
      default -> "{\"error\":\"unknown event\"}";
    };
    page.send("43" + id + "[" + reply + "]");
  }

  /** Sends, unless the peer is gone (the load exits without closing its sockets). */
  private static void send(WebSocket to, String text) {
    try {
      to.send(text);
    } catch (org.java_websocket.exceptions.WebsocketNotConnectedException e) {
      // a page the load left when it exited
    }
  }

  private static String user(String auth) {
    return tree(auth).get("user").asText();
  }

  private static JsonNode tree(String json) {
    try {
      return RawLoad.JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public void onClose(WebSocket conn, int code, String reason, boolean remote) {
    pageUsers.remove(conn);
  }

  @Override
  public void onError(WebSocket conn, Exception ex) {
    System.err.println("raw forwarder: " + ex);
  }

  @Override
  public void onStart() {
    started.countDown();
  }

  /** Starts it; returns its port once it listens. */
  int startAndWait() throws InterruptedException {
    start();
    if (!started.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
      throw new IllegalStateException("the raw forwarder did not start");
    }
    return getPort();
  }
}
