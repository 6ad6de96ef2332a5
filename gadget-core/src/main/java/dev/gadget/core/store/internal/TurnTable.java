package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import java.util.List;

/**
 * Where {@link IndexedState} keeps its turns: all in memory ({@link MemoryTurns}, the in-memory
 * store), or the running ones in memory and the finished ones on disk ({@link DiskTurns}, the
 * journaled store). Not thread-safe: its store holds a lock.
 */
interface TurnTable {
  boolean contains(String id);

  /** The turn, or null; a finished turn kept on disk is read. */
  ChatTurn get(String id);

  /** Whether the turn exists and is still processing. */
  boolean running(String id);

  /** The session of the turn, or null if there is no such turn. */
  String sessionOf(String id);

  /** Adds or replaces a turn. */
  void put(ChatTurn t);

  /** Removes the turns of a session. */
  void removeSession(String sessionId);

  /** The session's turns in {@code seq} order. */
  List<ChatTurn> listSession(String sessionId);

  /** The turns still processing, by id. */
  List<ChatTurn> unfinished();

  /** The changes that recreate the turns a snapshot holds as records. */
  void snapshotInto(List<Change> out);

  int size();
}
