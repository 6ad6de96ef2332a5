package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Sorts.ascending;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import dev.gadget.core.model.Project;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;

/** The {@code projects} collection: a user's projects, listed in id order. */
public final class Projects {
  private final Operations ops;
  private final MongoCollection<Document> projects;

  public Projects(Operations ops) {
    this.ops = ops;
    this.projects = ops.collection(Schema.PROJECTS);
  }

  public void createProject(Project project) {
    Objects.requireNonNull(project, "project");
    ops.run("createProject", "project " + project.id(),
        () -> projects.insertOne(Codecs.project(project)));
  }

  public Optional<Project> findProject(String id) {
    return ops.findOne("findProject", projects, eq("_id", id), Codecs::project);
  }

  public void renameProject(String projectId, String name) {
    Objects.requireNonNull(name, "name");
    ops.updateExisting("renameProject", projects, "project " + projectId, projectId,
        Updates.set("name", name));
  }

  public List<Project> listProjects(String userId) {
    return ops.findAll("listProjects", projects, eq("userId", userId), ascending("_id"),
        Codecs::project);
  }
}
