package dev.gadget.store.mongo.internal;

import com.mongodb.client.model.IndexModel;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import java.util.List;
import java.util.Map;

/**
 * The store's collections and the indexes it creates on them (docs/STORE-MONGO.md). Creating an
 * index that already exists with the same keys and options does nothing, so this runs at every
 * start.
 */
public final class Schema {
  public static final String USERS = "users";
  public static final String TOKENS = "tokens";
  public static final String PROJECTS = "projects";
  public static final String SESSIONS = "chatSessions";
  public static final String TURNS = "chatTurns";
  public static final String DRONES = "drones";
  public static final String PROVIDERS = "providers";
  public static final String USAGE = "usageTotals";

  /** Every collection with its indexes (besides {@code _id}), in creation order. */
  public static final Map<String, List<IndexModel>> INDEXES = Map.of(
      USERS, List.of(
          new IndexModel(Indexes.ascending("username"), new IndexOptions().unique(true))),
      TOKENS, List.of(
          new IndexModel(Indexes.ascending("hash"), new IndexOptions().unique(true)),
          new IndexModel(Indexes.ascending("userId"))),
      PROJECTS, List.of(
          new IndexModel(Indexes.ascending("userId", "_id"))),
      SESSIONS, List.of(
          new IndexModel(Indexes.ascending("userId", "projectId", "_id"))),
      TURNS, List.of(
          new IndexModel(Indexes.ascending("sessionId", "seq", "_id")),
          new IndexModel(Indexes.ascending("status", "_id"))),
      DRONES, List.of(
          new IndexModel(Indexes.ascending("userId", "workspaceId", "_id"))),
      PROVIDERS, List.of(
          new IndexModel(Indexes.ascending("userId", "_id"))),
      USAGE, List.of(
          new IndexModel(Indexes.ascending("userId", "providerId", "modelId"))));

  /** The collections in a fixed order. */
  public static final List<String> COLLECTIONS =
      List.of(USERS, TOKENS, PROJECTS, SESSIONS, TURNS, DRONES, PROVIDERS, USAGE);

  private Schema() {}
}
