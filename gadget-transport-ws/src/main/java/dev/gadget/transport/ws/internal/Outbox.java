package dev.gadget.transport.ws.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds what a reading thread's handlers send while it handles the frames of one read, and
 * writes it when the last of those frames is handled: one system call per peer and read, where
 * a write per frame would cost one per event. A drone's read holds many stream events, most of
 * them for the same pages, so those pages get them in one write.
 *
 * <p>{@link StrictDraft#processFrame} opens the thread's outbox before each frame it hands on
 * and {@link #release releases} it after the read's last frame (or when handling one fails).
 * Sends from any other thread ({@link #defer} false there) are written at once.
 */
final class Outbox {
  /** A session's frames that an outbox holds ({@link SessionOutput}). */
  interface Held {
    /**
     * Writes the frames held for this peer (the thread's outbox is releasing them), through
     * {@code scratch} when they fit it.
     */
    void flushHeld(ByteBuffer scratch);
  }

  /** The most bytes of one peer's frames copied into one write of the thread's own buffer. */
  static final int SCRATCH_BYTES = 64 * 1024;

  private static final ThreadLocal<Outbox> CURRENT = ThreadLocal.withInitial(Outbox::new);

  private final List<Held> held = new ArrayList<>();
  /**
   * Native memory the held frames are copied into for their write: the JDK would otherwise
   * copy each heap frame into a temporary native buffer of its own (a cache of 16 per thread;
   * past that it allocates and frees one per frame and write).
   */
  private final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES);
  private boolean open;

  private Outbox() {}

  /** Opens the calling thread's outbox: sends on this thread are held until {@link #release}. */
  static void hold() {
    CURRENT.get().open = true;
  }

  /**
   * Whether the calling thread holds sends now; if so, {@code output} is flushed when it
   * releases them (registered once: the caller tracks whether it already is, under its lock).
   */
  static boolean defer(Held output, boolean registered) {
    Outbox box = CURRENT.get();
    if (!box.open) {
      return false;
    }
    if (!registered) {
      box.held.add(output);
    }
    return true;
  }

  /**
   * Writes everything the calling thread held, and sends go out at once again. Every session
   * held for is flushed even if one of them fails; the first failure is then rethrown.
   */
  static void release() {
    Outbox box = CURRENT.get();
    box.open = false;
    if (box.held.isEmpty()) {
      return;
    }
    RuntimeException failed = null;
    // flushHeld never sends (nothing else is added meanwhile): the list can be walked
    for (int i = 0; i < box.held.size(); i++) {
      try {
        box.held.get(i).flushHeld(box.scratch);
      } catch (RuntimeException e) {
        failed = failed == null ? e : failed;
      }
    }
    box.held.clear();
    if (failed != null) {
      throw failed;
    }
  }
}
