package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.spi.StoreException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * News about a user's drones ({@code droneStatus}, {@code workspaceMode}) for the user's pages
 * on every node. The node that holds a drone appends its news to the drone's news feed
 * ({@code news:{droneId}}), numbered from the drone's lease (its fencing number times 2^32,
 * plus a counter of this node), so that a node that lost the drone cannot speak for it after the new holder
 * did; a node follows the news feeds of a user's drones while a page of that user is connected
 * to it, from the feed's end at that moment, and hands the news of other nodes to its pages.
 * News are not durable: a page that connects reads the drones' stored status
 * ({@code listDrones}). At most {@link #MAX_WAITING} news wait for the cluster (more are dropped
 * and logged). A drone's first status news after it connected to this node is also announced
 * on its user's roster feed ({@code drones:{userId}}: one entry a connection), which a node
 * follows while a page of that user is here: a drone registered after the page connected is then
 * followed from its news feed's start.
 */
final class DroneNews implements WatcherRooms.News {
  private static final Logger log = LoggerFactory.getLogger(DroneNews.class);
  static final int MAX_WAITING = 1_000;
  private static final int READ_BATCH = 1_000;
  private static final String FEED = "news:";
  private static final String ROSTER = "drones:";
  /** How often an announcement on a roster is tried again after another node's went first. */
  private static final int ROSTER_TRIES = 3;

  private final Cluster cluster;
  private final ChatStore store;
  private final ClusterNode node;
  private final WatcherRooms rooms;
  private final AtomicLong counter = new AtomicLong();
  private final ThreadPoolExecutor sender = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(MAX_WAITING), r -> {
        Thread t = new Thread(r, "gadget-drone-news");
        t.setDaemon(true);
        return t;
      }, (r, pool) -> log.warn("drone news dropped: {} wait for the cluster already",
          MAX_WAITING));
  /** The drones connected here whose arrival is on their user's roster. */
  private final java.util.Set<String> announced =
      java.util.concurrent.ConcurrentHashMap.newKeySet();
  /** Per user with pages here: how many pages, and the feeds followed. */
  private final Map<String, Follow> users = new HashMap<>();

  private static final class Follow {
    int pages;
    final List<Cluster.Subscription> feeds = new ArrayList<>();
    final java.util.Set<String> drones = new java.util.HashSet<>();
  }

  DroneNews(Cluster cluster, ChatStore store, ClusterNode node, WatcherRooms rooms) {
    this.cluster = cluster;
    this.store = store;
    this.node = node;
    this.rooms = rooms;
  }

  @Override
  public void published(String userId, String event, JsonNode payload) {
    String droneId = payload.path("droneId").asText(null);
    Cluster.Lease lease = droneId == null ? null : node.lease(droneId);
    if (lease == null) {
      return; // not leased here (the cluster is away, or another node took it): not ours to say
    }
    long seq = (lease.fence() << 32) | (counter.incrementAndGet() & 0xFFFF_FFFFL);
    ObjectNode body = GadgetJson.mapper().createObjectNode().put("node", cluster.nodeId());
    body.set("payload", payload);
    String json = body.toString();
    sender.execute(() -> {
      try {
        cluster.append(FEED + droneId, seq, event, json);
        if (event.equals(dev.gadget.core.protocol.Protocol.DRONE_STATUS)) {
          if ("offline".equals(payload.path("status").asText())) {
            announced.remove(droneId);
          } else if (announced.add(droneId)) {
            announce(userId, droneId);
          }
        }
      } catch (ClusterException e) {
        log.debug("news of drone {} not relayed: {}", droneId, e.getMessage());
      }
    });
  }

  /**
   * Puts {@code droneId} on its user's roster. Nodes append there in turn, so the number is
   * the roster's end plus one, found again when another node's announcement went first.
   */
  private void announce(String userId, String droneId) {
    String roster = ROSTER + userId;
    String json = GadgetJson.mapper().createObjectNode().put("droneId", droneId).toString();
    for (int i = 0; i < ROSTER_TRIES; i++) {
      if (cluster.append(roster, end(roster) + 1, "drone", json)) {
        return;
      }
    }
    log.debug("drone {} not announced: other nodes kept announcing first", droneId);
  }

  @Override
  public synchronized void pageConnected(String userId) {
    Follow f = users.computeIfAbsent(userId, u -> new Follow());
    if (f.pages++ > 0) {
      return;
    }
    List<DroneRegistration> drones;
    try {
      drones = store.listDrones(userId);
    } catch (StoreException e) {
      log.warn("news of the drones of user {} from other nodes are not followed: {}", userId,
          e.getMessage());
      return;
    }
    String roster = ROSTER + userId;
    try {
      f.feeds.add(cluster.follow(roster, end(roster), e -> rostered(userId, e)));
    } catch (ClusterException e) {
      log.warn("drones of user {} registered from now on are not followed: {}", userId,
          e.getMessage());
    }
    for (DroneRegistration d : drones) {
      follow(userId, f, d.id(), true);
    }
  }

  /** Follows the news of {@code droneId} for {@code f}: from now, or from the feed's start. */
  private void follow(String userId, Follow f, String droneId, boolean fromNow) {
    if (!f.drones.add(droneId)) {
      return;
    }
    String feed = FEED + droneId;
    try {
      f.feeds.add(cluster.follow(feed, fromNow ? end(feed) : 0, e -> forward(userId, e)));
    } catch (ClusterException e) {
      log.warn("news of drone {} from other nodes are not followed: {}", droneId,
          e.getMessage());
    }
  }

  /**
   * A drone was announced on the roster of {@code userId}: one this node does not follow yet
   * (registered after the user's pages came) is followed from its first news. Handed to the
   * sender's thread: the cluster may call this under its own locks, which following takes.
   */
  private void rostered(String userId, Cluster.FeedEvent e) {
    String droneId;
    try {
      droneId = GadgetJson.mapper().readTree(e.json()).path("droneId").asText("");
    } catch (IOException ex) {
      log.warn("a drone announced by another node cannot be read: {}", ex.getMessage());
      return;
    }
    if (droneId.isEmpty()) {
      return;
    }
    sender.execute(() -> {
      synchronized (this) {
        Follow f = users.get(userId);
        if (f != null) {
          follow(userId, f, droneId, false);
        }
      }
    });
  }

  @Override
  public synchronized void pageLeft(String userId) {
    Follow f = users.get(userId);
    if (f != null && --f.pages <= 0) {
      users.remove(userId);
      f.feeds.forEach(Cluster.Subscription::close);
    }
  }

  /** The number of the feed's last news (0: none). */
  private long end(String feed) {
    long last = 0;
    while (true) {
      List<Cluster.FeedEvent> batch = cluster.read(feed, last, READ_BATCH);
      if (batch.isEmpty()) {
        return last;
      }
      last = batch.get(batch.size() - 1).seq();
      if (batch.size() < READ_BATCH) {
        return last;
      }
    }
  }

  private void forward(String userId, Cluster.FeedEvent e) {
    try {
      JsonNode body = GadgetJson.mapper().readTree(e.json());
      if (!body.path("node").asText().equals(cluster.nodeId())) {
        rooms.toLocalUserPages(userId, e.event(), body.path("payload"));
      }
    } catch (IOException ex) {
      log.warn("news from another node cannot be read: {}", ex.getMessage());
    }
  }

  /** Stops relaying news. */
  synchronized void close() {
    users.values().forEach(f -> f.feeds.forEach(Cluster.Subscription::close));
    users.clear();
    sender.shutdownNow();
  }
}
