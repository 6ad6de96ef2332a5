/**
 * A Gadget {@code Cluster} on Redis through Lettuce: see
 * {@link dev.gadget.cluster.redis.RedisCluster}. Only the API package is exported.
 */
@SuppressWarnings("requires-automatic")
module dev.gadget.cluster.redis {
  requires transitive dev.gadget.core;
  requires lettuce.core;
  requires org.slf4j;

  exports dev.gadget.cluster.redis;
}
