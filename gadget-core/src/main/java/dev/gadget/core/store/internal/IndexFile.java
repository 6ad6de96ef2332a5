package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatSession;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * The index of a snapshot: the chat sessions ({@link SessionCodec}) and where each finished turn
 * is kept, by session, in binary (about 60 bytes a turn, read at about a million turns a second,
 * where JSON would take seconds):
 *
 * <pre>
 * "GADGETIX" version:int
 * (version 2) sessions:int, per session: {@link SessionCodec}
 * chats:int
 *   per chat: sessionId:UTF turns:int
 *     per turn (in seq order): id:UTF seq:long journal:int offset:long length:int
 * crc32c:long   (of everything before it)
 * </pre>
 *
 * Version 1 (snapshot version 2) held no sessions: its snapshot kept them as JSON records.
 */
final class IndexFile {
  private static final byte[] MAGIC = "GADGETIX".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 2;

  private IndexFile() {}

  /** Writes the index to {@code out}; returns how many turns it holds. */
  static long write(OutputStream raw, Collection<ChatSession> sessions,
      Map<String, List<DiskTurns.Ref>> bySession) throws IOException {
    CRC32C crc = new CRC32C();
    DataOutputStream out = new DataOutputStream(new CheckedOutputStream(
        new BufferedOutputStream(raw, 1 << 16), crc));
    out.write(MAGIC);
    out.writeInt(VERSION);
    out.writeInt(sessions.size());
    for (ChatSession s : sessions) {
      SessionCodec.write(out, s);
    }
    out.writeInt(bySession.size());
    long turns = 0;
    for (Map.Entry<String, List<DiskTurns.Ref>> e : bySession.entrySet()) {
      out.writeUTF(e.getKey());
      out.writeInt(e.getValue().size());
      for (DiskTurns.Ref r : e.getValue()) {
        out.writeUTF(r.id);
        out.writeLong(r.seq);
        out.writeInt(r.journal);
        out.writeLong(r.offset);
        out.writeInt(r.length);
        turns++;
      }
    }
    long sum = crc.getValue();
    out.writeLong(sum);
    out.flush();
    return turns;
  }

  /** A chat's finished turns as an index lists them, in {@code seq} order. */
  record Chat(String sessionId, List<DiskTurns.Ref> turns) {}

  /** What an index holds: the chat sessions (none in version 1) and the chats' finished turns. */
  record Index(List<ChatSession> sessions, List<Chat> chats) {
    static final Index EMPTY = new Index(List.of(), List.of());
  }

  /**
   * Reads the index at {@code file}: the sessions and each chat with its finished turns (no
   * store state touched, so it can run beside the reading of the snapshot).
   *
   * @throws IOException with a reason in words if it is not an index, damaged or cut short
   */
  static Index read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    if (bytes.length < MAGIC.length + 16) {
      throw new IOException("it ends before its last turn");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 8);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (in.getLong(bytes.length - 8) != crc.getValue()) {
      throw new IOException("its checksum does not match its content");
    }
    in.limit(bytes.length - 8);
    try {
      byte[] magic = new byte[MAGIC.length];
      in.get(magic);
      int version = in.getInt();
      if (!Arrays.equals(magic, MAGIC) || version < 1 || version > VERSION) {
        throw new IOException("it is not an index this version can read");
      }
      int count = version == 1 ? 0 : in.getInt();
      List<ChatSession> list = new ArrayList<>(Math.max(0, Math.min(count, in.remaining() / 16)));
      for (int s = 0; s < count; s++) {
        list.add(SessionCodec.read(in));
      }
      int sessions = in.getInt();
      List<Chat> chats = new ArrayList<>(sessions);
      for (int s = 0; s < sessions; s++) {
        String sessionId = utf(in);
        int n = in.getInt();
        List<DiskTurns.Ref> refs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          DiskTurns.Ref r = new DiskTurns.Ref(utf(in), sessionId, in.getLong());
          r.journal = in.getInt();
          r.offset = in.getLong();
          r.length = in.getInt();
          refs.add(r);
        }
        chats.add(new Chat(sessionId, refs));
      }
      if (in.hasRemaining()) {
        throw new IOException("it holds more than its sessions");
      }
      return new Index(list, chats);
    } catch (BufferUnderflowException e) {
      throw new IOException("it ends before its last turn");
    }
  }

  /** A string as {@link DataOutputStream#writeUTF} wrote it. */
  private static String utf(ByteBuffer in) throws IOException {
    int length = Short.toUnsignedInt(in.getShort());
    int at = in.position();
    byte[] b = in.array();
    if (at + length > in.limit()) {
      throw new BufferUnderflowException();
    }
    boolean ascii = true;
    for (int i = at; i < at + length && ascii; i++) {
      ascii = b[i] > 0;
    }
    in.position(at + length);
    if (ascii) {
      return new String(b, at, length, StandardCharsets.ISO_8859_1);
    }
    return new DataInputStream(new ByteArrayInputStream(b, at - 2, length + 2)).readUTF();
  }
}
