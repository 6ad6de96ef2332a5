package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.transport.Connection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this node asks of a user's drones another node holds, through that node's mail: a
 * request to the drone (undo, commit, push: {@link #ask}) and what the holder knows of its
 * drones now, the tool names each said it offers ({@code droneTools}) and its workspace mode
 * ({@link #facts}, one mail per holding node, answered from memory within
 * {@link #FACTS_DEADLINE}; a node that does not answer in time leaves its drones out). Those
 * facts give {@code listDrones}' {@code toolCount} and {@code mode} and {@code /agent}'s
 * {@code tool_count} the user's drones of every node (docs/CLUSTER.md).
 */
final class RemoteDrones {
  private static final Logger log = LoggerFactory.getLogger(RemoteDrones.class);
  /** Mail: a request for one of the receiving node's drones. */
  static final String DRONE = "drone";
  /** Mail: the tools and mode of the receiving node's drones of a user. */
  static final String FACTS = "droneFacts";
  /** How long the holder of a drone has to say what it knows of it. */
  static final Duration FACTS_DEADLINE = Duration.ofSeconds(2);
  /** At most this many tool counts for {@code /agent} wait to be gathered on a node. */
  static final int MAX_WAITING = 1_000;

  /** What the node that holds a drone knows of it now. */
  record Facts(List<String> tools, String mode, int orphansCleaned) {}

  /** The distinct tools of a user's drones on every node, and their orphans (for /agent). */
  record UserTools(int count, int orphansCleaned) {}

  private final ClusterNode node;
  private final Cluster cluster;
  private final DroneRouter router;
  private final ServerSettings settings;
  private final ThreadPoolExecutor gatherer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(MAX_WAITING), r -> {
        Thread t = new Thread(r, "gadget-remote-drones");
        t.setDaemon(true);
        return t;
      });

  RemoteDrones(ClusterNode node, Cluster cluster, DroneRouter router, ServerSettings settings) {
    this.node = node;
    this.cluster = cluster;
    this.router = router;
    this.settings = settings;
  }

  /**
   * Sends a request (undo, commit, push) to a drone another node holds, through that node;
   * completes with the drone's answer, or fails in words.
   */
  CompletableFuture<List<JsonNode>> ask(String droneId, String event, List<JsonNode> args,
      Duration timeout) {
    Optional<Cluster.Lease> lease = node.locate(droneId);
    if (lease.isEmpty() || lease.get().nodeId().equals(cluster.nodeId())) {
      return CompletableFuture.failedFuture(
          new RequestException("the drone that made these changes is not connected"));
    }
    ObjectNode body = GadgetJson.mapper().createObjectNode().put("droneId", droneId)
        .put("event", event).put("timeoutMs", timeout.toMillis());
    body.set("args", GadgetJson.mapper().valueToTree(args));
    CompletableFuture<List<JsonNode>> out = new CompletableFuture<>();
    cluster.send(lease.get().nodeId(), DRONE, body.toString(), timeout.plusSeconds(5))
        .whenComplete((answer, error) -> {
          if (error != null) {
            Throwable cause = error.getCause() != null ? error.getCause() : error;
            out.completeExceptionally(new RequestException(cause.getMessage()));
            return;
          }
          try {
            List<JsonNode> reply = new ArrayList<>();
            GadgetJson.mapper().readTree(answer).forEach(reply::add);
            out.complete(reply);
          } catch (IOException e) {
            out.completeExceptionally(new RequestException(
                "the drone's node sent an answer that cannot be read"));
          }
        });
    return out;
  }

  /** Mail for one of this node's drones: sent to it, its answer's arguments returned. */
  String answerRequest(JsonNode m) throws Exception {
    ConnectedDrone d = router.find(m.path("droneId").asText());
    Connection c = d == null ? null : d.connection;
    if (c == null || !c.isConnected()) {
      throw new RequestException("the drone that made these changes is not connected");
    }
    List<JsonNode> args = new ArrayList<>();
    m.path("args").forEach(args::add);
    Duration timeout = Duration.ofMillis(m.path("timeoutMs").asLong(15_000));
    List<JsonNode> reply = c.emitWithAck(m.path("event").asText(), args, timeout)
        .get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    return GadgetJson.mapper().valueToTree(reply).toString();
  }

  /**
   * Which of {@code drones} (the user's, as stored) another node holds now, each with that
   * node: one look-up per drone not connected here and not stored offline. When the cluster
   * cannot be reached, what was found so far (logged at debug).
   */
  Map<String, String> holders(List<DroneRegistration> drones) {
    Map<String, String> out = new LinkedHashMap<>();
    for (DroneRegistration d : drones) {
      ConnectedDrone here = router.find(d.id());
      if (here != null && here.isConnected() || d.status() == DroneStatus.OFFLINE) {
        continue;
      }
      try {
        Optional<Cluster.Lease> lease = cluster.locate(d.id());
        if (lease.isPresent() && !lease.get().nodeId().equals(cluster.nodeId())) {
          out.put(d.id(), lease.get().nodeId());
        }
      } catch (ClusterException e) {
        log.debug("the other server nodes cannot be reached to find drone {}: {}", d.id(),
            e.getMessage());
        break;
      }
    }
    return out;
  }

  /**
   * What the holding nodes know of the user's drones {@code holders} names (drone to node):
   * one mail per node, all at once, each within {@link #FACTS_DEADLINE}. A node that fails or
   * does not answer in time leaves its drones out (logged at debug); never fails.
   */
  CompletableFuture<Map<String, Facts>> facts(String userId, Map<String, String> holders) {
    Map<String, List<String>> byNode = new HashMap<>();
    holders.forEach((drone, at) -> byNode.computeIfAbsent(at, n -> new ArrayList<>()).add(drone));
    List<CompletableFuture<Map<String, Facts>>> asks = new ArrayList<>();
    byNode.forEach((at, ids) -> {
      ObjectNode body = GadgetJson.mapper().createObjectNode().put("userId", userId);
      ids.forEach(body.putArray("droneIds")::add);
      CompletableFuture<Map<String, Facts>> one;
      try {
        one = cluster.send(at, FACTS, body.toString(), FACTS_DEADLINE)
            .thenApply(RemoteDrones::readFacts);
      } catch (RuntimeException e) { // a cluster that throws rather than fails the future
        one = CompletableFuture.failedFuture(e);
      }
      asks.add(one.completeOnTimeout(null, FACTS_DEADLINE.toMillis() + 1_000,
          TimeUnit.MILLISECONDS).handle((facts, error) -> {
            if (facts == null) {
              log.debug("node {} did not say what its drones {} offer: {}", at, ids,
                  error == null ? "no answer in time" : error.getMessage());
              return Map.of();
            }
            return facts;
          }));
    });
    return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new)).thenApply(v -> {
      Map<String, Facts> all = new HashMap<>();
      asks.forEach(a -> all.putAll(a.join()));
      return all;
    });
  }

  /** {@link #facts}, waited for: at most its deadline and a second (then nothing). */
  Map<String, Facts> factsNow(String userId, Map<String, String> holders) {
    if (holders.isEmpty()) {
      return Map.of();
    }
    try {
      return facts(userId, holders).get(FACTS_DEADLINE.toMillis() + 2_000,
          TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Map.of();
    } catch (Exception e) {
      log.debug("the drones of user {} on other nodes are left out: {}", userId, e.toString());
      return Map.of();
    }
  }

  /**
   * The distinct tools the user's connected drones offer on every node, and how many orphaned
   * tools they dropped: this node's, with what the holders of the others say (gathered on a
   * thread of this class: the callers may hold a turn's lock or the cluster's reader). When
   * {@link #MAX_WAITING} wait already, this node's drones alone (logged at debug).
   */
  CompletableFuture<UserTools> userTools(String userId) {
    CompletableFuture<UserTools> out = new CompletableFuture<>();
    try {
      gatherer.execute(() -> {
        try {
          Map<String, String> held = holders(settings.store().listDrones(userId));
          facts(userId, held).whenComplete((facts, error) ->
              out.complete(combine(userId, facts == null ? Map.of() : facts)));
        } catch (RuntimeException e) { // the store is away: this node's drones
          log.debug("the drones of user {} on other nodes are left out: {}", userId,
              e.getMessage());
          out.complete(combine(userId, Map.of()));
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("{} tool counts wait already: the drones of user {} here alone", MAX_WAITING,
          userId);
      out.complete(combine(userId, Map.of()));
    }
    return out;
  }

  private UserTools combine(String userId, Map<String, Facts> elsewhere) {
    Set<String> names = new HashSet<>(router.toolNames(userId));
    int orphans = router.orphansCleaned(userId);
    for (Facts f : elsewhere.values()) {
      names.addAll(f.tools());
      orphans += f.orphansCleaned();
    }
    return new UserTools(names.size(), orphans);
  }

  /**
   * Mail from another node: the tools, mode and orphans of those of {@code droneIds} that are
   * this user's and connected here (nothing of another user's drone).
   */
  String answerFacts(JsonNode m) {
    String userId = m.path("userId").asText();
    ObjectNode answer = GadgetJson.mapper().createObjectNode();
    ArrayNode out = answer.putArray("drones");
    for (JsonNode id : m.path("droneIds")) {
      ConnectedDrone d = router.find(id.asText());
      if (d == null || !d.userId.equals(userId) || !d.isConnected()) {
        continue;
      }
      ObjectNode n = out.addObject().put("droneId", d.id)
          .put("mode", d.mode.name().toLowerCase(Locale.ROOT))
          .put("orphansCleaned", d.orphansCleaned);
      d.toolNames.forEach(n.putArray("tools")::add);
    }
    return answer.toString();
  }

  private static Map<String, Facts> readFacts(String answer) {
    try {
      Map<String, Facts> out = new HashMap<>();
      for (JsonNode d : GadgetJson.mapper().readTree(answer).path("drones")) {
        List<String> tools = new ArrayList<>();
        d.path("tools").forEach(t -> tools.add(t.asText()));
        out.put(d.path("droneId").asText(), new Facts(List.copyOf(tools),
            d.path("mode").asText("idle"), Math.max(0, d.path("orphansCleaned").asInt())));
      }
      return out;
    } catch (IOException e) {
      throw new ClusterException("another node's answer about its drones cannot be read: "
          + e.getMessage());
    }
  }

  /** Stops gathering. */
  void close() {
    gatherer.shutdownNow();
  }
}
