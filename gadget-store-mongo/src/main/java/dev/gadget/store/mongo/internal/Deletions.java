package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;

import com.mongodb.client.MongoCollection;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/**
 * Deleting chat sessions and projects with what belongs to them: a session's turns (their blocks
 * and tool calls are inside them), a project's sessions. What belongs to an entity is deleted
 * before the entity itself, so a deletion cut short (the database out of reach midway) leaves no
 * orphan behind: the entity is still there, and deleting it again finishes the job.
 */
public final class Deletions {
  private static final int BATCH = 500;

  private final Operations ops;
  private final MongoCollection<Document> projects;
  private final MongoCollection<Document> sessions;
  private final MongoCollection<Document> turns;

  public Deletions(Operations ops) {
    this.ops = ops;
    this.projects = ops.collection(Schema.PROJECTS);
    this.sessions = ops.collection(Schema.SESSIONS);
    this.turns = ops.collection(Schema.TURNS);
  }

  /** Deletes the session's turns, then the session; whether there was such a session. */
  public boolean deleteSession(String sessionId) {
    if (sessionId == null) {
      return false;
    }
    return ops.call("deleteSession", "chat session " + sessionId, () -> {
      if (!Operations.exists(sessions, sessionId)) {
        return false;
      }
      turns.deleteMany(eq("sessionId", sessionId));
      return sessions.deleteOne(eq("_id", sessionId)).getDeletedCount() > 0;
    });
  }

  /**
   * Deletes the turns of the project's sessions, then the sessions (a batch at a time), then
   * the project; whether there was such a project.
   */
  public boolean deleteProject(String projectId) {
    if (projectId == null) {
      return false;
    }
    return ops.call("deleteProject", "project " + projectId, () -> {
      Document project = projects.find(eq("_id", projectId))
          .projection(new Document("userId", 1)).first();
      if (project == null) {
        return false;
      }
      var ofProject = and(eq("userId", project.getString("userId")), eq("projectId", projectId));
      List<String> ids;
      do {
        ids = new ArrayList<>();
        for (Document d : sessions.find(ofProject).projection(new Document("_id", 1))
            .limit(BATCH)) {
          ids.add(d.getString("_id"));
        }
        if (!ids.isEmpty()) {
          turns.deleteMany(in("sessionId", ids));
          sessions.deleteMany(in("_id", ids));
        }
      } while (ids.size() == BATCH);
      return projects.deleteOne(eq("_id", projectId)).getDeletedCount() > 0;
    });
  }
}
