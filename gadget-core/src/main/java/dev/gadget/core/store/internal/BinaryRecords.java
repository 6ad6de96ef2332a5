package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.User;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Users, projects and chat sessions in binary, as a snapshot's index keeps them (version 2 and 3
 * of {@link IndexFile}): read without Jackson, so opening a store with tens of thousands of chats
 * does not decode as many JSON records.
 *
 * <pre>
 * user:    id:str username:str displayName:str createdAt:instant
 * project: id:str userId:str name:str slug:str gitUrl:str createdAt:instant
 * session: id:str userId:str projectId:str name:str workspaceId:str? createdAt:instant
 *          providerId:str? modelId:str? sampling:(flags:byte [temperature:double] [topP:double]
 *          [topK:int]) approvalPolicy:str? toolDeferral:str? createTools:byte (version 3 on;
 *          -1: null, 0: false, 1: true)
 * str: length:int (-1: null) then that many bytes of UTF-8; instant: seconds:long nanos:int
 * </pre>
 */
final class BinaryRecords {
  private static final int TEMPERATURE = 1;
  private static final int TOP_P = 2;
  private static final int TOP_K = 4;

  private BinaryRecords() {}

  static void write(DataOutputStream out, User u) throws IOException {
    string(out, u.id());
    string(out, u.username());
    string(out, u.displayName());
    instant(out, u.createdAt());
  }

  static User readUser(ByteBuffer in) throws IOException {
    String id = string(in);
    String username = string(in);
    String displayName = string(in);
    Instant createdAt = instant(in);
    try {
      return new User(id, username, displayName, createdAt);
    } catch (RuntimeException e) {
      throw new IOException("it holds a user that is not whole (" + e.getMessage() + ")");
    }
  }

  static void write(DataOutputStream out, Project p) throws IOException {
    string(out, p.id());
    string(out, p.userId());
    string(out, p.name());
    string(out, p.slug());
    string(out, p.gitUrl());
    instant(out, p.createdAt());
  }

  static Project readProject(ByteBuffer in) throws IOException {
    String id = string(in);
    String userId = string(in);
    String name = string(in);
    String slug = string(in);
    String gitUrl = string(in);
    Instant createdAt = instant(in);
    try {
      return new Project(id, userId, name, slug, gitUrl, createdAt);
    } catch (RuntimeException e) {
      throw new IOException("it holds a project that is not whole (" + e.getMessage() + ")");
    }
  }

  static void write(DataOutputStream out, ChatSession s) throws IOException {
    string(out, s.id());
    string(out, s.userId());
    string(out, s.projectId());
    string(out, s.name());
    string(out, s.workspaceId());
    instant(out, s.createdAt());
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
    string(out, s.approvalPolicy());
    string(out, s.toolDeferral());
    out.writeByte(s.createTools() == null ? -1 : s.createTools() ? 1 : 0);
  }

  /**
   * Reads a session written by {@link #write}; {@code withCreateTools} false for one of an index
   * before version 3 (it has none: as the drone is set).
   *
   * @throws IOException if it is not one (a required field missing, a length out of bounds)
   */
  static ChatSession readSession(ByteBuffer in, boolean withCreateTools) throws IOException {
    String id = string(in);
    String userId = string(in);
    String projectId = string(in);
    String name = string(in);
    String workspaceId = string(in);
    Instant createdAt = instant(in);
    String providerId = string(in);
    String modelId = string(in);
    int flags = in.get();
    Sampling sampling = flags == 0 ? null : new Sampling(
        (flags & TEMPERATURE) != 0 ? in.getDouble() : null,
        (flags & TOP_P) != 0 ? in.getDouble() : null,
        (flags & TOP_K) != 0 ? in.getInt() : null);
    String approvalPolicy = string(in);
    String toolDeferral = string(in);
    int createTools = withCreateTools ? in.get() : -1;
    if (createTools < -1 || createTools > 1) {
      throw new IOException("it holds a chat session whose createTools is " + createTools);
    }
    try {
      return new ChatSession(id, userId, projectId, name, workspaceId, createdAt, providerId,
          modelId, sampling, approvalPolicy, toolDeferral,
          createTools < 0 ? null : createTools == 1);
    } catch (RuntimeException e) {
      throw new IOException("it holds a chat session that is not whole (" + e.getMessage() + ")");
    }
  }

  private static void instant(DataOutputStream out, Instant t) throws IOException {
    out.writeLong(t.getEpochSecond());
    out.writeInt(t.getNano());
  }

  private static Instant instant(ByteBuffer in) throws IOException {
    long seconds = in.getLong();
    int nanos = in.getInt();
    if (nanos < 0 || nanos > 999_999_999) {
      throw new IOException("it holds a time that is not one");
    }
    return Instant.ofEpochSecond(seconds, nanos);
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
