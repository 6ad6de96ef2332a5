package dev.gadget.store.mongo.internal;

import com.mongodb.client.model.Updates;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Maps the core model to BSON documents and back, by hand: field names are those of
 * docs/MODEL.md (the names {@code GadgetJson} writes), instants are BSON dates (milliseconds)
 * with any finer part in a companion {@code <field>Nanos} field written only when non-zero,
 * enums are their lower-case wire names, and absent values are omitted. Reading is tolerant of what a person or an older writer may have left:
 * any BSON number where a number is expected, ISO-8601 strings or epoch milliseconds where a date
 * is expected, and unknown fields ignored. A document that cannot be read becomes a
 * {@link StoreException.Reason#FAILED} naming the collection and the document's id.
 *
 * <p>Blocks are ordered by {@code seq} when read, whatever order they were pushed in.
 * Stateless and thread-safe.
 */
public final class Codecs {
  private Codecs() {}

  // ---- users, tokens, projects, sessions, drones

  public static Document user(User u) {
    Document d = new Document("_id", u.id())
        .append("username", u.username())
        .append("displayName", u.displayName());
    return putInstant(d, "createdAt", u.createdAt());
  }

  public static User user(Document d) {
    return read(Schema.USERS, d, x -> new User(
        string(x, "_id"), string(x, "username"), optString(x, "displayName"),
        instant(x, "createdAt")));
  }

  public static Document token(StoredToken t) {
    Document d = new Document("_id", t.id())
        .append("userId", t.userId())
        .append("kind", wire(t.kind()))
        .append("label", t.label())
        .append("hash", t.hash());
    return putInstant(d, "createdAt", t.createdAt());
  }

  public static StoredToken token(Document d) {
    return read(Schema.TOKENS, d, x -> new StoredToken(
        string(x, "_id"), string(x, "userId"), parse(TokenKind.class, string(x, "kind")),
        optString(x, "label"), string(x, "hash"), instant(x, "createdAt")));
  }

  public static Document project(Project p) {
    Document d = new Document("_id", p.id())
        .append("userId", p.userId())
        .append("name", p.name())
        .append("slug", p.slug())
        .append("gitUrl", p.gitUrl());
    return putInstant(d, "createdAt", p.createdAt());
  }

  public static Project project(Document d) {
    return read(Schema.PROJECTS, d, x -> new Project(
        string(x, "_id"), string(x, "userId"), string(x, "name"), string(x, "slug"),
        string(x, "gitUrl"), instant(x, "createdAt")));
  }

  public static Document session(ChatSession s) {
    Document d = new Document("_id", s.id())
        .append("userId", s.userId())
        .append("projectId", s.projectId())
        .append("name", s.name());
    putIfPresent(d, "workspaceId", s.workspaceId());
    return putInstant(d, "createdAt", s.createdAt());
  }

  public static ChatSession session(Document d) {
    return read(Schema.SESSIONS, d, x -> new ChatSession(
        string(x, "_id"), string(x, "userId"), string(x, "projectId"), string(x, "name"),
        optString(x, "workspaceId"), instant(x, "createdAt")));
  }

  public static Document drone(DroneRegistration r) {
    Document d = new Document("_id", r.id())
        .append("userId", r.userId())
        .append("workspaceId", r.workspaceId())
        .append("hostname", r.hostname())
        .append("workspaceDir", r.workspaceDir())
        .append("status", wire(r.status()));
    putInstant(d, "registeredAt", r.registeredAt());
    return putInstant(d, "lastSeenAt", r.lastSeenAt());
  }

  public static DroneRegistration drone(Document d) {
    return read(Schema.DRONES, d, x -> new DroneRegistration(
        string(x, "_id"), string(x, "userId"), string(x, "workspaceId"), string(x, "hostname"),
        string(x, "workspaceDir"), parse(DroneStatus.class, string(x, "status")),
        instant(x, "registeredAt"), optInstant(x, "lastSeenAt")));
  }

  // ---- turns

  public static Document turn(ChatTurn t) {
    List<Document> blocks = new ArrayList<>(t.blocks().size());
    for (TurnBlock b : t.blocks()) {
      blocks.add(block(b));
    }
    List<Document> calls = new ArrayList<>(t.toolCalls().size());
    for (ToolCall c : t.toolCalls()) {
      calls.add(toolCall(c));
    }
    Document d = new Document("_id", t.id())
        .append("sessionId", t.sessionId())
        .append("userId", t.userId())
        .append("seq", t.seq())
        .append("status", wire(t.status()))
        .append("prompt", t.prompt())
        .append("mode", t.mode())
        .append("blocks", blocks)
        .append("toolCalls", calls)
        .append("stats", stats(t.stats()));
    putInstant(d, "createdAt", t.createdAt());
    if (t.finishedAt() != null) {
      putInstant(d, "finishedAt", t.finishedAt());
    }
    putIfPresent(d, "error", t.error());
    putIfPresent(d, "droneId", t.droneId());
    return d;
  }

  public static ChatTurn turn(Document d) {
    return read(Schema.TURNS, d, x -> {
      List<TurnBlock> blocks = new ArrayList<>();
      for (Document b : documents(x, "blocks")) {
        blocks.add(block(b));
      }
      blocks.sort(Comparator.comparingInt(TurnBlock::seq));
      List<ToolCall> calls = new ArrayList<>();
      for (Document c : documents(x, "toolCalls")) {
        calls.add(toolCall(c));
      }
      Document stats = x.get("stats", Document.class);
      return new ChatTurn(
          string(x, "_id"), string(x, "sessionId"), string(x, "userId"), number(x, "seq"),
          parse(TurnStatus.class, string(x, "status")), string(x, "prompt"),
          optString(x, "mode"), blocks, calls, stats == null ? null : stats(stats),
          instant(x, "createdAt"), optInstant(x, "finishedAt"), optString(x, "error"),
          optString(x, "droneId"));
    });
  }

  public static Document block(TurnBlock b) {
    Document d = putInstant(
        new Document("seq", b.seq()).append("mode", b.mode()), "createdAt", b.createdAt());
    if (b instanceof TurnBlock.Tool tool) {
      return d.append("content", toolCall(tool.content()));
    }
    return d.append("content",
        b instanceof TurnBlock.Thinking t ? t.content() : ((TurnBlock.Responding) b).content());
  }

  static TurnBlock block(Document d) {
    int seq = Math.toIntExact(number(d, "seq"));
    Instant at = instant(d, "createdAt");
    String mode = string(d, "mode");
    switch (mode) {
      case "thinking":
        return new TurnBlock.Thinking(seq, at, string(d, "content"));
      case "responding":
        return new TurnBlock.Responding(seq, at, string(d, "content"));
      case "tool":
        Document call = d.get("content", Document.class);
        if (call == null) {
          throw new IllegalArgumentException("tool block " + seq + " has no content");
        }
        return new TurnBlock.Tool(seq, at, toolCall(call));
      default:
        throw new IllegalArgumentException("unknown block mode '" + mode + "'");
    }
  }

  public static Document toolCall(ToolCall c) {
    Document d = new Document("callId", c.callId())
        .append("name", c.name())
        .append("parameters", c.parameters());
    putIfPresent(d, "response", c.response());
    return d;
  }

  static ToolCall toolCall(Document d) {
    return new ToolCall(string(d, "callId"), string(d, "name"), optString(d, "parameters"),
        optString(d, "response"));
  }

  public static Document stats(TurnStats s) {
    return new Document("promptTokens", s.promptTokens())
        .append("completionTokens", s.completionTokens())
        .append("thinkingTokenCount", s.thinkingTokenCount())
        .append("toolCallCount", s.toolCallCount())
        .append("llmCalls", s.llmCalls())
        .append("durationMs", s.durationMs());
  }

  static TurnStats stats(Document d) {
    return new TurnStats(optNumber(d, "promptTokens"), optNumber(d, "completionTokens"),
        optNumber(d, "thinkingTokenCount"), Math.toIntExact(optNumber(d, "toolCallCount")),
        Math.toIntExact(optNumber(d, "llmCalls")), optNumber(d, "durationMs"));
  }

  // ---- values

  /** The wire name of an enum constant: its lower-case name, as {@code GadgetJson} writes it. */
  public static String wire(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  /** The field holding the part of {@code field}'s instant finer than a millisecond. */
  public static String nanosField(String field) {
    return field + "Nanos";
  }

  /** A BSON date for {@code instant}: its millisecond, finer parts dropped. */
  public static Date date(Instant instant) {
    return new Date(instant.toEpochMilli());
  }

  /**
   * The updates that set {@code field} to {@code instant} as {@link #putInstant} writes it,
   * removing a finer part left from an earlier value.
   */
  public static List<Bson> setInstant(String field, Instant instant) {
    int nanos = subMillisNanos(instant);
    return List.of(Updates.set(field, date(instant)), nanos == 0
        ? Updates.unset(nanosField(field))
        : Updates.set(nanosField(field), nanos));
  }

  /** The nanoseconds of {@code instant} past its millisecond, 0 to 999,999. */
  public static int subMillisNanos(Instant instant) {
    return instant.getNano() % 1_000_000;
  }

  /**
   * Puts {@code instant} as a BSON date under {@code field} and, only when it is finer than a
   * millisecond, the rest under {@link #nanosField}, so that nothing is lost.
   */
  public static Document putInstant(Document d, String field, Instant instant) {
    d.append(field, date(instant));
    int nanos = subMillisNanos(instant);
    if (nanos != 0) {
      d.append(nanosField(field), nanos);
    }
    return d;
  }

  private static <E extends Enum<E>> E parse(Class<E> type, String wire) {
    for (E e : type.getEnumConstants()) {
      if (wire(e).equals(wire)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "unknown " + type.getSimpleName() + " '" + wire + "'");
  }

  private static <T> T read(String collection, Document d, Function<Document, T> reader) {
    try {
      return reader.apply(d);
    } catch (RuntimeException e) {
      Object id = d.get("_id");
      throw new StoreException(StoreException.Reason.FAILED,
          "malformed document in " + collection + " (_id " + id + "): " + e.getMessage(), e);
    }
  }

  private static void putIfPresent(Document d, String key, Object value) {
    if (value != null) {
      d.append(key, value);
    }
  }

  private static Object required(Document d, String key) {
    Object v = d.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing field '" + key + "'");
    }
    return v;
  }

  private static String string(Document d, String key) {
    Object v = required(d, key);
    if (!(v instanceof String s)) {
      throw new IllegalArgumentException(
          "field '" + key + "' is a " + v.getClass().getSimpleName() + ", not a string");
    }
    return s;
  }

  private static String optString(Document d, String key) {
    return d.get(key) == null ? null : string(d, key);
  }

  private static long number(Document d, String key) {
    Object v = required(d, key);
    if (!(v instanceof Number n)) {
      throw new IllegalArgumentException(
          "field '" + key + "' is a " + v.getClass().getSimpleName() + ", not a number");
    }
    return n.longValue();
  }

  private static long optNumber(Document d, String key) {
    return d.get(key) == null ? 0 : number(d, key);
  }

  private static Instant instant(Document d, String key) {
    Object nanos = d.get(nanosField(key));
    Instant at = millisInstant(d, key);
    if (nanos == null) {
      return at;
    }
    if (!(nanos instanceof Number n) || n.longValue() < 0 || n.longValue() >= 1_000_000) {
      throw new IllegalArgumentException(
          "field '" + nanosField(key) + "' is not a number from 0 to 999999");
    }
    return at.plusNanos(n.longValue());
  }

  private static Instant millisInstant(Document d, String key) {
    Object v = required(d, key);
    if (v instanceof Date date) {
      return date.toInstant();
    }
    if (v instanceof String s) {
      try {
        return Instant.parse(s);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("field '" + key + "' is not an ISO-8601 instant", e);
      }
    }
    if (v instanceof Long || v instanceof Integer) {
      return Instant.ofEpochMilli(((Number) v).longValue());
    }
    throw new IllegalArgumentException(
        "field '" + key + "' is a " + v.getClass().getSimpleName() + ", not a date");
  }

  private static Instant optInstant(Document d, String key) {
    return d.get(key) == null ? null : instant(d, key);
  }

  private static List<Document> documents(Document d, String key) {
    Object v = d.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> list)) {
      throw new IllegalArgumentException("field '" + key + "' is not an array");
    }
    List<Document> out = new ArrayList<>(list.size());
    for (Object o : list) {
      if (!(o instanceof Document doc)) {
        throw new IllegalArgumentException("field '" + key + "' holds a non-document");
      }
      out.add(doc);
    }
    return out;
  }
}
