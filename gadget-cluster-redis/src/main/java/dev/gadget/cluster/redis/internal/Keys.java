package dev.gadget.cluster.redis.internal;

/** The names of a cluster's keys in Redis, all under one prefix (docs/CLUSTER.md). */
public record Keys(String prefix) {
  /** The drone's lease: "nodeId fence", with a time to live. */
  public String drone(String droneId) {
    return prefix + "drone:" + droneId;
  }

  /** A chat's claim: the id of the turn that runs in it, with a time to live. */
  public String chat(String sessionId) {
    return prefix + "chat:" + sessionId;
  }

  /** The counter every lease's fencing number comes from. */
  public String fence() {
    return prefix + "fence";
  }

  /** A turn's feed: a stream of entries whose ids are 0-(seq+1) of their last event. */
  public String turn(String turnId) {
    return prefix + "turn:" + turnId;
  }

  /** A node's mail: a stream of requests to it and answers to its own requests. */
  public String mail(String nodeId) {
    return prefix + "mail:" + nodeId;
  }

  /** The nodes' peer addresses: a sorted set of "nodeId host:port", scored by expiry (ms). */
  public String peers() {
    return prefix + "peers";
  }

  /** A feed entry's id for {@code seq}: stream ids start above 0-0. */
  public static String feedId(long seq) {
    return "0-" + (seq + 1);
  }

  /** The seq of a feed entry's id. */
  public static long seqOf(String id) {
    return Long.parseLong(id.substring(id.indexOf('-') + 1)) - 1;
  }
}
