package dev.gadget.core;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Generates identifiers for Gadget entities: 24 lower-case hex characters laid out like a MongoDB
 * ObjectId (4 bytes of seconds, 5 random bytes fixed per process, a 3-byte counter), so that ids
 * from one process sort in creation order and fit any store. Thread-safe.
 */
public final class Ids {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final byte[] PROCESS = new byte[5];
  private static final AtomicInteger COUNTER;

  static {
    RANDOM.nextBytes(PROCESS);
    COUNTER = new AtomicInteger(RANDOM.nextInt(0x00ffffff));
  }

  private Ids() {}

  /** A new, unique id. */
  public static String next() {
    int seconds = (int) (System.currentTimeMillis() / 1000);
    int count = COUNTER.getAndIncrement() & 0x00ffffff;
    StringBuilder sb = new StringBuilder(24);
    hex(sb, seconds >>> 24);
    hex(sb, seconds >>> 16);
    hex(sb, seconds >>> 8);
    hex(sb, seconds);
    for (byte b : PROCESS) {
      hex(sb, b);
    }
    hex(sb, count >>> 16);
    hex(sb, count >>> 8);
    hex(sb, count);
    return sb.toString();
  }

  private static void hex(StringBuilder sb, int b) {
    sb.append(Character.forDigit((b >>> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
  }
}
