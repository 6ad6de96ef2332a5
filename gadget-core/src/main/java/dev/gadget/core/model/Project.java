package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A git project a user works on. The drone clones it into {@code <workspace>/<slug>}.
 *
 * @param id the project's id
 * @param userId the owner
 * @param name the display name
 * @param slug the directory name inside a workspace: letters, digits, {@code .}, {@code _}, {@code -}
 * @param gitUrl where to clone it from (any URL or path {@code git clone} takes)
 * @param createdAt when it was created
 */
public record Project(
    @JsonProperty("_id") String id,
    String userId,
    String name,
    String slug,
    String gitUrl,
    Instant createdAt) {
  public Project {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(slug, "slug");
    Objects.requireNonNull(gitUrl, "gitUrl");
    Objects.requireNonNull(createdAt, "createdAt");
    if (!slug.matches("[A-Za-z0-9._-]+") || slug.equals(".") || slug.equals("..")) {
      throw new IllegalArgumentException("slug must be a plain directory name: " + slug);
    }
  }

  /** This project with another name (its slug, the directory a workspace clones it to, stays). */
  public Project withName(String name) {
    return new Project(id, userId, name, slug, gitUrl, createdAt);
  }
}
