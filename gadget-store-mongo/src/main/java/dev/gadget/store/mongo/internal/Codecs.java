package dev.gadget.store.mongo.internal;

import static dev.gadget.store.mongo.internal.Fields.documents;
import static dev.gadget.store.mongo.internal.Fields.instant;
import static dev.gadget.store.mongo.internal.Fields.number;
import static dev.gadget.store.mongo.internal.Fields.optInstant;
import static dev.gadget.store.mongo.internal.Fields.optNumber;
import static dev.gadget.store.mongo.internal.Fields.optString;
import static dev.gadget.store.mongo.internal.Fields.parse;
import static dev.gadget.store.mongo.internal.Fields.putIfPresent;
import static dev.gadget.store.mongo.internal.Fields.putInstant;
import static dev.gadget.store.mongo.internal.Fields.string;
import static dev.gadget.store.mongo.internal.Fields.wire;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.ToolStep;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnDiff;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import org.bson.Document;

/**
 * Maps the core model to BSON documents and back, by hand: field names are those of
 * docs/MODEL.md (the names {@code GadgetJson} writes), each value encoded as {@link Fields}
 * describes (instants exact to the nanosecond, enums by wire name, absent values omitted), and
 * unknown fields ignored when reading. A document that cannot be read becomes a
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
    putIfPresent(d, "providerId", s.providerId());
    putIfPresent(d, "modelId", s.modelId());
    putIfPresent(d, "sampling", ProviderCodecs.sampling(s.sampling()));
    putIfPresent(d, "approvalPolicy", s.approvalPolicy());
    putIfPresent(d, "toolDeferral", s.toolDeferral());
    putIfPresent(d, "createTools", s.createTools());
    return putInstant(d, "createdAt", s.createdAt());
  }

  public static ChatSession session(Document d) {
    return read(Schema.SESSIONS, d, x -> new ChatSession(
        string(x, "_id"), string(x, "userId"), string(x, "projectId"), string(x, "name"),
        optString(x, "workspaceId"), instant(x, "createdAt"), optString(x, "providerId"),
        optString(x, "modelId"), ProviderCodecs.sampling(x.get("sampling")),
        optString(x, "approvalPolicy"), optString(x, "toolDeferral"),
        x.get("createTools") instanceof Boolean b ? b : null));
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
    if (t.model() != null) {
      d.append("model", ProviderCodecs.turnModel(t.model()));
    }
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
          optString(x, "droneId"), ProviderCodecs.turnModel(x.get("model", Document.class)));
    });
  }

  public static Document block(TurnBlock b) {
    Document d = putInstant(
        new Document("seq", b.seq()).append("mode", b.mode()), "createdAt", b.createdAt());
    if (b instanceof TurnBlock.Tool tool) {
      return d.append("content", toolCall(tool.content()));
    }
    if (b instanceof TurnBlock.Diff diff) {
      return d.append("content", diff(diff.content()));
    }
    if (b instanceof TurnBlock.Compaction c) {
      return d.append("content", compaction(c.content()));
    }
    d.append("content",
        b instanceof TurnBlock.Thinking t ? t.content() : ((TurnBlock.Responding) b).content());
    if (b instanceof TurnBlock.Thinking t && !t.reasoning().isEmpty()) {
      List<Document> signed = new ArrayList<>(t.reasoning().size());
      for (SignedReasoning r : t.reasoning()) {
        signed.add(new Document("provider", r.provider()).append("text", r.text())
            .append("signature", r.signature()).append("data", r.data()));
      }
      d.append("reasoning", signed);
    }
    return b.isSuperseded() ? d.append("superseded", true) : d;
  }

  private static List<SignedReasoning> reasoning(Document d) {
    List<Document> stored = d.getList("reasoning", Document.class);
    if (stored == null) {
      return List.of();
    }
    List<SignedReasoning> out = new ArrayList<>(stored.size());
    for (Document r : stored) {
      out.add(new SignedReasoning(optString(r, "provider"), optString(r, "text"),
          optString(r, "signature"), optString(r, "data")));
    }
    return out;
  }

  static TurnBlock block(Document d) {
    int seq = Math.toIntExact(number(d, "seq"));
    Instant at = instant(d, "createdAt");
    String mode = string(d, "mode");
    switch (mode) {
      case "thinking":
        return new TurnBlock.Thinking(seq, at, string(d, "content"),
            Boolean.TRUE.equals(d.getBoolean("superseded")), reasoning(d));
      case "responding":
        return new TurnBlock.Responding(seq, at, string(d, "content"),
            Boolean.TRUE.equals(d.getBoolean("superseded")));
      case "tool":
        Document call = d.get("content", Document.class);
        if (call == null) {
          throw new IllegalArgumentException("tool block " + seq + " has no content");
        }
        return new TurnBlock.Tool(seq, at, toolCall(call));
      case "diff":
        Document changes = d.get("content", Document.class);
        if (changes == null) {
          throw new IllegalArgumentException("diff block " + seq + " has no content");
        }
        return new TurnBlock.Diff(seq, at, diff(changes));
      case "compaction":
        Document c = d.get("content", Document.class);
        if (c == null) {
          throw new IllegalArgumentException("compaction block " + seq + " has no content");
        }
        return new TurnBlock.Compaction(seq, at, compaction(c));
      default:
        throw new IllegalArgumentException("unknown block mode '" + mode + "'");
    }
  }

  /** A diff block's content, as its JSON. */
  static Document diff(TurnDiff diff) {
    return Document.parse(GadgetJson.mapper().valueToTree(diff).toString());
  }

  static TurnDiff diff(Document d) {
    try {
      return GadgetJson.mapper().readValue(d.toJson(), TurnDiff.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("a diff block cannot be read: " + e.getOriginalMessage());
    }
  }

  static Document compaction(ContextCompaction c) {
    Document d = new Document("summary", c.summary())
        .append("summarized", c.summarized())
        .append("summarizedMessages", c.summarizedMessages())
        .append("tokensBefore", c.tokensBefore())
        .append("tokensAfter", c.tokensAfter())
        .append("keptTurnId", c.keptTurnId());
    putIfPresent(d, "keptAfterCallId", c.keptAfterCallId());
    return d.append("promptRepeated", c.promptRepeated());
  }

  static ContextCompaction compaction(Document d) {
    return new ContextCompaction(string(d, "summary"), string(d, "summarized"),
        Math.toIntExact(number(d, "summarizedMessages")),
        Math.toIntExact(number(d, "tokensBefore")), Math.toIntExact(number(d, "tokensAfter")),
        string(d, "keptTurnId"), optString(d, "keptAfterCallId"),
        Boolean.TRUE.equals(d.getBoolean("promptRepeated")));
  }

  public static Document toolCall(ToolCall c) {
    Document d = new Document("callId", c.callId())
        .append("name", c.name())
        .append("parameters", c.parameters());
    putIfPresent(d, "response", c.response());
    if (c.failed()) {
      d.append("error", true);
    }
    if (c.durationMs() != null) {
      d.append("durationMs", c.durationMs());
    }
    if (!c.steps().isEmpty()) {
      List<Document> steps = new ArrayList<>();
      for (ToolStep s : c.steps()) {
        Document step = new Document("name", s.name());
        if (s.exitCode() != null) {
          step.append("exitCode", s.exitCode());
        }
        if (s.durationMs() != null) {
          step.append("durationMs", s.durationMs());
        }
        steps.add(step);
      }
      d.append("steps", steps);
    }
    return d;
  }

  static ToolCall toolCall(Document d) {
    Object duration = d.get("durationMs");
    List<ToolStep> steps = new ArrayList<>();
    List<Document> stored = d.getList("steps", Document.class);
    if (stored != null) {
      for (Document s : stored) {
        Object code = s.get("exitCode");
        Object took = s.get("durationMs");
        steps.add(new ToolStep(string(s, "name"), code instanceof Number n ? n.intValue() : null,
            took instanceof Number n ? n.longValue() : null));
      }
    }
    return new ToolCall(string(d, "callId"), string(d, "name"), optString(d, "parameters"),
        optString(d, "response"), Boolean.TRUE.equals(d.get("error")),
        duration instanceof Number n ? n.longValue() : null, null, steps);
  }

  public static Document stats(TurnStats s) {
    Document d = new Document("promptTokens", s.promptTokens())
        .append("completionTokens", s.completionTokens())
        .append("thinkingTokenCount", s.thinkingTokenCount())
        .append("toolCallCount", s.toolCallCount())
        .append("llmCalls", s.llmCalls())
        .append("durationMs", s.durationMs())
        .append("contextTokens", s.contextTokens())
        .append("contextBudget", s.contextBudget())
        .append("crashRetries", s.crashRetries());
    putIfSet(d, "loadDurationMs", s.loadDurationMs());
    putIfSet(d, "promptEvalDurationMs", s.promptEvalDurationMs());
    putIfSet(d, "evalDurationMs", s.evalDurationMs());
    if (s.cacheReadTokens() != 0 || s.cacheWriteTokens() != 0) {
      d.append("cacheReadTokens", s.cacheReadTokens())
          .append("cacheWriteTokens", s.cacheWriteTokens());
    }
    if (s.toolsLoaded() != 0 || s.toolsDeferred() != 0) {
      d.append("toolsLoaded", s.toolsLoaded()).append("toolsDeferred", s.toolsDeferred());
    }
    if (!s.toolDurations().isEmpty()) {
      List<Document> tools = new java.util.ArrayList<>();
      for (TurnStats.ToolDuration t : s.toolDurations()) {
        tools.add(new Document("callId", t.callId()).append("name", t.name())
            .append("durationMs", t.durationMs()));
      }
      d.append("toolDurations", tools);
    }
    return d;
  }

  private static void putIfSet(Document d, String key, Long value) {
    if (value != null) {
      d.append(key, value);
    }
  }

  static TurnStats stats(Document d) {
    List<TurnStats.ToolDuration> tools = new java.util.ArrayList<>();
    List<Document> stored = d.getList("toolDurations", Document.class);
    if (stored != null) {
      for (Document t : stored) {
        tools.add(new TurnStats.ToolDuration(optString(t, "callId"), optString(t, "name"),
            optNumber(t, "durationMs")));
      }
    }
    return new TurnStats(optNumber(d, "promptTokens"), optNumber(d, "completionTokens"),
        optNumber(d, "thinkingTokenCount"), Math.toIntExact(optNumber(d, "toolCallCount")),
        Math.toIntExact(optNumber(d, "llmCalls")), optNumber(d, "durationMs"),
        optNumber(d, "contextTokens"), optNumber(d, "contextBudget"),
        Math.toIntExact(optNumber(d, "crashRetries")), optLong(d, "loadDurationMs"),
        optLong(d, "promptEvalDurationMs"), optLong(d, "evalDurationMs"), tools,
        optNumber(d, "cacheReadTokens"), optNumber(d, "cacheWriteTokens"),
        Math.toIntExact(optNumber(d, "toolsLoaded")),
        Math.toIntExact(optNumber(d, "toolsDeferred")));
  }

  private static Long optLong(Document d, String key) {
    Object v = d.get(key);
    return v instanceof Number n ? n.longValue() : null;
  }

  static <T> T read(String collection, Document d, Function<Document, T> reader) {
    try {
      return reader.apply(d);
    } catch (RuntimeException e) {
      Object id = d.get("_id");
      throw new StoreException(StoreException.Reason.FAILED,
          "malformed document in " + collection + " (_id " + id + "): " + e.getMessage(), e);
    }
  }
}
