package dev.gadget.cluster.redis.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The Lua scripts that make each presence operation one atomic round trip, run by
 * their SHA and sent again when Redis lost its script cache (a restart).
 */
public final class Scripts {
  /** KEYS: lease, fence counter; ARGV: node, ttl ms. Takes the drone over; returns the fence. */
  public static final String ACQUIRE = """
      local f = redis.call('INCR', KEYS[2])
      redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. f, 'PX', ARGV[2])
      return f""";
  /**
   * KEYS: lease, fence counter; ARGV: "node fence", floor, node, ttl ms. When the lease is still
   * held: the counter raised to the floor, incremented, the lease set again with it; returns the
   * new fence, else 0.
   */
  public static final String REFENCE = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then
        return 0
      end
      local n = tonumber(redis.call('GET', KEYS[2]) or '0')
      if n < tonumber(ARGV[2]) then
        redis.call('SET', KEYS[2], ARGV[2])
      end
      local f = redis.call('INCR', KEYS[2])
      redis.call('SET', KEYS[1], ARGV[3] .. ' ' .. f, 'PX', ARGV[4])
      return f""";
  /**
   * KEYS: lease (or a chat's claim); ARGV: "node fence" (or the turn's id), ttl ms. 1 if still
   * held and extended, else 0.
   */
  public static final String RENEW = """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        return redis.call('PEXPIRE', KEYS[1], ARGV[2])
      end
      return 0""";
  /**
   * KEYS: lease (or a chat's claim); ARGV: "node fence" (or the turn's id). Deletes it only if
   * still held.
   */
  public static final String RELEASE = """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        return redis.call('DEL', KEYS[1])
      end
      return 0""";
  private final RedisCommands<String, String> redis;
  private final String acquire;
  private final String renew;
  private final String release;
  private final String refence;

  /** Loads the scripts into Redis. */
  public Scripts(RedisCommands<String, String> redis) {
    this.redis = redis;
    this.acquire = redis.digest(ACQUIRE);
    this.renew = redis.digest(RENEW);
    this.release = redis.digest(RELEASE);
    this.refence = redis.digest(REFENCE);
  }

  /**
   * Runs the script with this text (one of the constants above), returning its integer.
   */
  public long run(String script, String[] keys, String... args) {
    String sha = switch (script) {
      case ACQUIRE -> acquire;
      case RENEW -> renew;
      case RELEASE -> release;
      case REFENCE -> refence;
      default -> throw new IllegalArgumentException("not one of the scripts");
    };
    try {
      Long r = redis.evalsha(sha, ScriptOutputType.INTEGER, keys, args);
      return r;
    } catch (RedisNoScriptException e) {
      Long r = redis.eval(script, ScriptOutputType.INTEGER, keys, args);
      return r;
    }
  }
}
