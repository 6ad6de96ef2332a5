package dev.gadget.core.server.internal;

/**
 * A fixed set of locks shared out by key (a chat's or a drone's id), so that what is done for
 * one key runs one at a time without a lock object per key kept forever.
 */
final class StripedLocks {
  private final Object[] locks;

  StripedLocks(int count) {
    locks = new Object[count];
    for (int i = 0; i < count; i++) {
      locks[i] = new Object();
    }
  }

  /** The lock of {@code key}: the same for the same key, shared with some others. */
  Object of(String key) {
    return locks[Math.floorMod(key.hashCode(), locks.length)];
  }
}
