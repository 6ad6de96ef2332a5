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
 * and logged); a drone registered after a page connected is followed from that page's next
 * connection.
 */
final class DroneNews implements WatcherRooms.News {
  private static final Logger log = LoggerFactory.getLogger(DroneNews.class);
  static final int MAX_WAITING = 1_000;
  private static final int READ_BATCH = 1_000;
  private static final String FEED = "news:";

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
  /** Per user with pages here: how many pages, and the feeds followed. */
  private final Map<String, Follow> users = new HashMap<>();

  private static final class Follow {
    int pages;
    final List<Cluster.Subscription> feeds = new ArrayList<>();
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
      } catch (ClusterException e) {
        log.debug("news of drone {} not relayed: {}", droneId, e.getMessage());
      }
    });
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
    for (DroneRegistration d : drones) {
      String feed = FEED + d.id();
      try {
        f.feeds.add(cluster.follow(feed, end(feed), e -> forward(userId, e)));
      } catch (ClusterException e) {
        log.warn("news of drone {} from other nodes are not followed: {}", d.id(),
            e.getMessage());
      }
    }
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
