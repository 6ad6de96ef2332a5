package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Sorts.ascending;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import dev.gadget.core.model.ChatSession;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The {@code chatSessions} collection: a user's chat sessions (all, or one project's) in id
 * order, and the workspace a session is bound to.
 */
public final class Sessions {
  private final Operations ops;
  private final MongoCollection<Document> sessions;

  public Sessions(Operations ops) {
    this.ops = ops;
    this.sessions = ops.collection(Schema.SESSIONS);
  }

  public void createSession(ChatSession session) {
    Objects.requireNonNull(session, "session");
    ops.run("createSession", "chat session " + session.id(),
        () -> sessions.insertOne(Codecs.session(session)));
  }

  public Optional<ChatSession> findSession(String id) {
    return ops.findOne("findSession", sessions, eq("_id", id), Codecs::session);
  }

  public List<ChatSession> listSessions(String userId, String projectId) {
    Bson filter = projectId == null
        ? eq("userId", userId)
        : and(eq("userId", userId), eq("projectId", projectId));
    return ops.findAll("listSessions", sessions, filter, ascending("_id"), Codecs::session);
  }

  public void renameSession(String sessionId, String name) {
    Objects.requireNonNull(name, "name");
    ops.updateExisting("renameSession", sessions, "chat session " + sessionId, sessionId,
        Updates.set("name", name));
  }

  /** Sets the session's {@code workspaceId}, or removes it for {@code null}. */
  public void setSessionWorkspace(String sessionId, String workspaceId) {
    Bson update = workspaceId == null
        ? Updates.unset("workspaceId")
        : Updates.set("workspaceId", workspaceId);
    ops.updateExisting("setSessionWorkspace", sessions, "chat session " + sessionId, sessionId,
        update);
  }

  /** Sets the session's {@code approvalPolicy}, or removes it for {@code null}. */
  public void setSessionApprovalPolicy(String sessionId, String approvalPolicy) {
    setField("setSessionApprovalPolicy", sessionId, "approvalPolicy", approvalPolicy);
  }

  /** Sets the session's {@code createTools}, or removes it for {@code null}. */
  public void setSessionCreateTools(String sessionId, Boolean createTools) {
    setField("setSessionCreateTools", sessionId, "createTools", createTools);
  }

  private void setField(String op, String sessionId, String field, Object value) {
    ops.updateExisting(op, sessions, "chat session " + sessionId, sessionId,
        value == null ? Updates.unset(field) : Updates.set(field, value));
  }
}
