package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.User;
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
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * The index of a snapshot: the users, projects and chat sessions ({@link BinaryRecords}) and
 * where each finished turn is kept, by session, in binary (about 60 bytes a turn, read at about a
 * million turns a second, where JSON would take seconds):
 *
 * <pre>
 * "GADGETIX" version:int
 * (version 2 and later) users:int, per user; projects:int, per project; sessions:int, per
 *   session (each as {@link BinaryRecords} writes it; from version 3 with its createTools)
 * chats:int
 *   per chat: sessionId:UTF turns:int
 *     per turn (in seq order): id:UTF seq:long journal:int offset:long length:int
 * crc32c:long   (of everything before it)
 * </pre>
 *
 * Version 1 (snapshot version 2) held no users, projects or sessions: its snapshot kept them as
 * JSON records.
 */
final class IndexFile {
  private static final byte[] MAGIC = "GADGETIX".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 3;

  private IndexFile() {}

  /** Writes the index to {@code out}; returns how many turns it holds. */
  static long write(OutputStream raw, Index.Records records,
      Map<String, List<DiskTurns.Ref>> bySession) throws IOException {
    CRC32C crc = new CRC32C();
    DataOutputStream out = new DataOutputStream(new CheckedOutputStream(
        new BufferedOutputStream(raw, 1 << 16), crc));
    out.write(MAGIC);
    out.writeInt(VERSION);
    out.writeInt(records.users().size());
    for (User u : records.users()) {
      BinaryRecords.write(out, u);
    }
    out.writeInt(records.projects().size());
    for (Project p : records.projects()) {
      BinaryRecords.write(out, p);
    }
    out.writeInt(records.sessions().size());
    for (ChatSession s : records.sessions()) {
      BinaryRecords.write(out, s);
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

  /** What an index holds: its records (none in version 1) and the chats' finished turns. */
  record Index(Records records, List<Chat> chats) {
    static final Index EMPTY = new Index(new Records(List.of(), List.of(), List.of()), List.of());

    /** The users, projects and chat sessions of a snapshot. */
    record Records(List<User> users, List<Project> projects, List<ChatSession> sessions) {
      boolean isEmpty() {
        return users.isEmpty() && projects.isEmpty() && sessions.isEmpty();
      }
    }
  }

  /** Reads one record of an index. */
  private interface Reader<T> {
    T read(ByteBuffer in) throws IOException;
  }

  private static <T> List<T> list(ByteBuffer in, boolean present, Reader<T> reader)
      throws IOException {
    int count = present ? in.getInt() : 0;
    List<T> out = new ArrayList<>(Math.max(0, Math.min(count, in.remaining() / 16)));
    for (int i = 0; i < count; i++) {
      out.add(reader.read(in));
    }
    return out;
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
      List<User> users = list(in, version > 1, BinaryRecords::readUser);
      List<Project> projects = list(in, version > 1, BinaryRecords::readProject);
      List<ChatSession> list = list(in, version > 1,
          b -> BinaryRecords.readSession(b, version > 2));
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
      return new Index(new Index.Records(users, projects, list), chats);
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
