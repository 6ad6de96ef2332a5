package dev.gadget.core.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The connected pages and the rooms they watch: one room per chat session, holding the pages
 * that receive its live stream. Joining a room happens under the session's lock (see
 * {@link LiveTurns#snapshot}), so a page never misses or doubles an event.
 */
public final class WatcherRooms {
  private final Map<Connection, String> pageUsers = new ConcurrentHashMap<>();
  /** Each room's pages, replaced whole on a join or leave: read on every event, changed rarely. */
  private final Map<String, Connection[]> rooms = new ConcurrentHashMap<>();
  /** Who follows a session's events in-process (seed 004's face), with the typed payloads. */
  private final Map<String, Set<BiConsumer<String, Object>>> observers =
      new ConcurrentHashMap<>();
  /** Where the events sent to watchers also go in a cluster ({@link FeedRelay}), or null. */
  private volatile Relay relay;

  /** Receives every event sent to a session's watchers on this node (in a cluster). */
  interface Relay {
    /** {@code event} with {@code args} went to the watchers of {@code sessionId}. */
    void published(String sessionId, String event, List<JsonNode> args);
  }

  /** Where the news about drones also go in a cluster ({@link DroneNews}), or null. */
  private volatile News news;

  /** The news about a user's drones in a cluster: sent out, and followed while pages are here. */
  interface News {
    /** {@code event} about one of {@code userId}'s drones went to the user's pages here. */
    void published(String userId, String event, JsonNode payload);

    /** A page of {@code userId} connected to this node. */
    void pageConnected(String userId);

    /** A page of {@code userId} left this node. */
    void pageLeft(String userId);
  }

  /** News about drones go to {@code n} too, from now on. */
  void newsTo(News n) {
    this.news = n;
  }

  /** Every event sent to watchers goes to {@code r} too, from now on. */
  void relayTo(Relay r) {
    this.relay = r;
  }

  /** Whether a page (or a seed-004 client) of this node watches {@code sessionId}. */
  boolean watched(String sessionId) {
    return rooms.containsKey(sessionId) || observers.containsKey(sessionId);
  }

  /**
   * Sends {@code event} to the pages of this node watching {@code sessionId}, not to the
   * cluster: an event another node relayed ({@link RemoteTurns}).
   */
  void toRoom(String sessionId, String event, List<JsonNode> args, Connection except) {
    Connection[] room = rooms.get(sessionId);
    if (room == null) {
      return;
    }
    for (Connection c : room) {
      if (c != except) {
        c.emit(event, args);
      }
    }
  }

  /**
   * Gives the in-process followers of {@code sessionId} an event another node relayed, as the
   * typed payload {@link #toWatchers} gives them (the events seed 004's face reads; others are
   * not decoded).
   */
  void toObservers(String sessionId, String event, String json) {
    Set<BiConsumer<String, Object>> following = observers.get(sessionId);
    Class<?> type = RELAYED_TYPES.get(event);
    if (following == null || type == null) {
      return;
    }
    Object payload;
    try {
      payload = GadgetJson.mapper().readValue(json, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return; // not one of ours: pages got it as it came
    }
    for (BiConsumer<String, Object> o : following) {
      o.accept(event, payload);
    }
  }

  /** The events {@link #toObservers} decodes, with their payloads' types. */
  private static final Map<String, Class<?>> RELAYED_TYPES = Map.of(
      Protocol.RESPONSE, Payloads.TextEvent.class,
      Protocol.TOOL_STARTED, Payloads.ToolStarted.class,
      Protocol.TOOL_CALL, Payloads.ToolCallEvent.class,
      Protocol.WORK_ORDER_COMPLETE, Payloads.WorkOrderComplete.class);

  /** A page of {@code userId} connected. */
  public void pageConnected(Connection page, String userId) {
    pageUsers.put(page, userId);
    News n = news;
    if (n != null) {
      n.pageConnected(userId);
    }
  }

  /** A page disconnected: it leaves every room. */
  public void pageDisconnected(Connection page) {
    String userId = pageUsers.remove(page);
    News n = news;
    if (n != null && userId != null) {
      n.pageLeft(userId);
    }
    for (String sessionId : rooms.keySet()) {
      leave(sessionId, page);
    }
  }

  /** {@code page} receives the live stream of {@code sessionId} from now on. */
  void join(String sessionId, Connection page) {
    rooms.compute(sessionId, (k, room) -> {
      if (room == null) {
        return new Connection[] {page};
      }
      for (Connection c : room) {
        if (c == page) {
          return room;
        }
      }
      Connection[] more = Arrays.copyOf(room, room.length + 1);
      more[room.length] = page;
      return more;
    });
  }

  /** {@code page} no longer receives the live stream of {@code sessionId}. */
  public void leave(String sessionId, Connection page) {
    rooms.computeIfPresent(sessionId, (k, room) -> without(room, page));
  }

  /** {@code room} less {@code page} (itself if {@code page} is not in it), null when empty. */
  private static Connection[] without(Connection[] room, Connection page) {
    for (int i = 0; i < room.length; i++) {
      if (room[i] == page) {
        if (room.length == 1) {
          return null;
        }
        Connection[] left = new Connection[room.length - 1];
        System.arraycopy(room, 0, left, 0, i);
        System.arraycopy(room, i + 1, left, i, left.length - i);
        return left;
      }
    }
    return room;
  }

  /**
   * {@code observer} receives every event sent to {@code sessionId}'s watchers, with its typed
   * payload, from now on (called where the pages' events are sent: keep it short).
   */
  void observe(String sessionId, BiConsumer<String, Object> observer) {
    observers.computeIfAbsent(sessionId, k -> ConcurrentHashMap.newKeySet()).add(observer);
  }

  /** {@code observer} receives no more of {@code sessionId}'s events. */
  void unobserve(String sessionId, BiConsumer<String, Object> observer) {
    observers.computeIfPresent(sessionId, (k, set) -> {
      set.remove(observer);
      return set.isEmpty() ? null : set;
    });
  }

  /** Tells the watchers of a deleted session, which leave its room. */
  void sessionDeleted(Payloads.SessionDeleted deleted) {
    toWatchers(deleted.sessionId(), Protocol.SESSION_DELETED, deleted);
    rooms.remove(deleted.sessionId());
    observers.remove(deleted.sessionId());
  }

  /** Sends {@code event} to every page watching {@code sessionId}. */
  void toWatchers(String sessionId, String event, Object payload) {
    toWatchers(sessionId, event, payload, null);
  }

  /**
   * As above; the pages get {@code received} when it is not null: the payload's arguments as
   * they came (see {@link Protocol#receivedArgs}).
   */
  void toWatchers(String sessionId, String event, Object payload, List<JsonNode> received) {
    Set<BiConsumer<String, Object>> following = observers.get(sessionId);
    if (following != null) {
      for (BiConsumer<String, Object> o : following) {
        o.accept(event, payload);
      }
    }
    Connection[] room = rooms.get(sessionId);
    Relay r = relay;
    if (room == null && r == null) {
      return;
    }
    List<JsonNode> args = received != null ? received : Protocol.args(payload);
    if (room != null) {
      for (Connection c : room) {
        c.emit(event, args);
      }
    }
    if (r != null) {
      r.published(sessionId, event, args);
    }
  }

  /** Tells every page of {@code userId} that one of its drones changed status. */
  void toUserPages(String userId, Payloads.DroneStatusEvent status) {
    toUserPages(userId, Protocol.DRONE_STATUS, status);
  }

  /** Sends {@code event} to every page of {@code userId} (news about one of its drones). */
  void toUserPages(String userId, String event, Object payload) {
    List<JsonNode> args = Protocol.args(payload);
    toLocalUserPages(userId, event, args.get(0));
    News n = news;
    if (n != null) {
      n.published(userId, event, args.get(0));
    }
  }

  /** Sends news about a drone to the pages of {@code userId} here, not to the cluster. */
  void toLocalUserPages(String userId, String event, JsonNode payload) {
    List<JsonNode> args = List.of(payload);
    pageUsers.forEach((connection, user) -> {
      if (user.equals(userId)) {
        connection.emit(event, args);
      }
    });
  }
}
