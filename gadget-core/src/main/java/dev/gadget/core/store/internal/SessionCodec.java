package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Sampling;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * A chat session in binary, as a snapshot's index keeps it (version 2 of {@link IndexFile}): read
 * without Jackson, so opening a store with tens of thousands of chats does not decode as many JSON
 * records.
 *
 * <pre>
 * id:str userId:str projectId:str name:str workspaceId:str? createdAt:(seconds:long nanos:int)
 * providerId:str? modelId:str? sampling:(flags:byte [temperature:double] [topP:double] [topK:int])
 * str: length:int (-1: null) then that many bytes of UTF-8
 * </pre>
 */
final class SessionCodec {
  private static final int TEMPERATURE = 1;
  private static final int TOP_P = 2;
  private static final int TOP_K = 4;

  private SessionCodec() {}

  static void write(DataOutputStream out, ChatSession s) throws IOException {
    string(out, s.id());
    string(out, s.userId());
    string(out, s.projectId());
    string(out, s.name());
    string(out, s.workspaceId());
    out.writeLong(s.createdAt().getEpochSecond());
    out.writeInt(s.createdAt().getNano());
    string(out, s.providerId());
    string(out, s.modelId());
    Sampling p = s.sampling();
    int flags = p == null ? 0 : (p.temperature() != null ? TEMPERATURE : 0)
        | (p.topP() != null ? TOP_P : 0) | (p.topK() != null ? TOP_K : 0);
    out.writeByte(flags);
    if ((flags & TEMPERATURE) != 0) {
      out.writeDouble(p.temperature());
    }
    if ((flags & TOP_P) != 0) {
      out.writeDouble(p.topP());
    }
    if ((flags & TOP_K) != 0) {
      out.writeInt(p.topK());
    }
  }

  /**
   * Reads a session written by {@link #write}.
   *
   * @throws IOException if it is not one (a required field missing, a length out of bounds)
   */
  static ChatSession read(ByteBuffer in) throws IOException {
    String id = string(in);
    String userId = string(in);
    String projectId = string(in);
    String name = string(in);
    String workspaceId = string(in);
    Instant createdAt = Instant.ofEpochSecond(in.getLong(), in.getInt());
    String providerId = string(in);
    String modelId = string(in);
    int flags = in.get();
    Sampling sampling = flags == 0 ? null : new Sampling(
        (flags & TEMPERATURE) != 0 ? in.getDouble() : null,
        (flags & TOP_P) != 0 ? in.getDouble() : null,
        (flags & TOP_K) != 0 ? in.getInt() : null);
    try {
      return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
          modelId, sampling);
    } catch (RuntimeException e) {
      throw new IOException("it holds a chat session that is not whole (" + e.getMessage() + ")");
    }
  }

  private static void string(DataOutputStream out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String string(ByteBuffer in) {
    int length = in.getInt();
    if (length < 0) {
      return null;
    }
    int at = in.position();
    if (length > in.limit() - at) {
      throw new BufferUnderflowException();
    }
    in.position(at + length);
    return new String(in.array(), at, length, StandardCharsets.UTF_8);
  }
}
