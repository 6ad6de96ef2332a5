package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.internal.RecordCodec.BadRecordException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Reads finished turns from the journals that keep them, one positioned read of exactly the
 * turn's record each (no scan), through a bounded cache ({@link TurnCache}); deletes the journals
 * nothing refers to any more. At most {@link #OPEN_FILES} journals are open for reading at once.
 * Thread-safe: reads run outside the store's lock, and a journal is deleted only while no read
 * runs.
 */
final class TurnFiles implements AutoCloseable {
  static final int OPEN_FILES = 64;

  private final StoreDirectory dir;
  private final TurnCache cache;
  private final ReentrantReadWriteLock deleting = new ReentrantReadWriteLock();
  private final Map<Integer, FileChannel> open = new LinkedHashMap<>(16, 0.75f, true);

  TurnFiles(StoreDirectory dir, TurnCache cache) {
    this.dir = dir;
    this.cache = cache;
  }

  TurnCache cache() {
    return cache;
  }

  /**
   * The turn kept at {@code home}.
   *
   * @throws StoreException FAILED if the record cannot be read or is damaged
   * @throws GoneException if its journal was deleted meanwhile (the turn with it)
   */
  ChatTurn read(Home home) {
    ChatTurn cached = cache.get(home);
    if (cached != null) {
      return cached;
    }
    ChatTurn turn = decode(home, bytes(home));
    cache.put(home, turn);
    return turn;
  }

  /** The raw record at {@code home}, newline included. */
  byte[] bytes(Home home) {
    deleting.readLock().lock();
    try {
      for (int attempt = 0; ; attempt++) {
        try {
          FileChannel ch = channel(home.journal());
          ByteBuffer buf = ByteBuffer.allocate(home.length());
          long at = home.offset();
          while (buf.hasRemaining()) {
            int n = ch.read(buf, at);
            if (n < 0) {
              throw failed(home, "the file ends before it");
            }
            at += n;
          }
          return buf.array();
        } catch (NoSuchFileException e) {
          throw new GoneException();
        } catch (ClosedChannelException e) {
          if (attempt > 2) {
            throw failed(home, e.toString());
          } // closed to make room for another journal: open it again
        } catch (IOException e) {
          throw failed(home, e.toString());
        }
      }
    } finally {
      deleting.readLock().unlock();
    }
  }

  private ChatTurn decode(Home home, byte[] record) {
    try {
      Change c = RecordCodec.decode(record, 0, record.length - 1, Change.class);
      if (c instanceof Change.CreateTurn t) {
        return t.turn();
      }
      throw failed(home, "it is a " + c.getClass().getSimpleName() + " record, not a turn");
    } catch (BadRecordException e) {
      throw failed(home, "it is damaged: " + e.getMessage());
    }
  }

  /** Deletes journal {@code number}, waiting for reads that run, and syncs the directory. */
  void delete(int number) throws IOException {
    deleting.writeLock().lock();
    try {
      FileChannel ch;
      synchronized (open) {
        ch = open.remove(number);
      }
      if (ch != null) {
        ch.close();
      }
      java.nio.file.Files.deleteIfExists(dir.journal(number));
      cache.dropJournal(number);
    } finally {
      deleting.writeLock().unlock();
    }
  }

  private FileChannel channel(int number) throws IOException {
    synchronized (open) {
      FileChannel ch = open.get(number);
      if (ch != null && ch.isOpen()) {
        return ch;
      }
      ch = FileChannel.open(dir.journal(number), StandardOpenOption.READ);
      open.put(number, ch);
      Iterator<FileChannel> oldest = open.values().iterator();
      while (open.size() > OPEN_FILES) {
        FileChannel out = oldest.next();
        oldest.remove();
        try {
          out.close();
        } catch (IOException e) {
          // only read from
        }
      }
      return ch;
    }
  }

  private StoreException failed(Home home, String why) {
    return new StoreException(StoreException.Reason.FAILED, "cannot read a finished turn from "
        + dir.journal(home.journal()) + " (byte " + home.offset() + ", " + home.length()
        + " bytes): " + why);
  }

  @Override
  public void close() {
    synchronized (open) {
      for (FileChannel ch : open.values()) {
        try {
          ch.close();
        } catch (IOException e) {
          // only read from
        }
      }
      open.clear();
    }
  }

  /** The journal of a turn was deleted after the turn was looked up: ask again. */
  static final class GoneException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GoneException() {
      super("the turn's journal was deleted", null, false, false);
    }
  }
}
