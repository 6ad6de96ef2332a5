package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.User;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;

/**
 * The {@code users} and {@code tokens} collections: accounts, found by id or unique username,
 * and their tokens, found by unique hash. A token is saved only for a user that exists.
 */
public final class Users {
  private final Operations ops;
  private final MongoCollection<Document> users;
  private final MongoCollection<Document> tokens;

  public Users(Operations ops) {
    this.ops = ops;
    this.users = ops.collection(Schema.USERS);
    this.tokens = ops.collection(Schema.TOKENS);
  }

  public void createUser(User user) {
    Objects.requireNonNull(user, "user");
    ops.run("createUser", "user " + user.username() + " (or id " + user.id() + ")",
        () -> users.insertOne(Codecs.user(user)));
  }

  public Optional<User> findUser(String id) {
    return ops.findOne("findUser", users, eq("_id", id), Codecs::user);
  }

  public Optional<User> findUserByName(String username) {
    return ops.findOne("findUserByName", users, eq("username", username), Codecs::user);
  }

  public void saveToken(StoredToken token) {
    Objects.requireNonNull(token, "token");
    ops.run("saveToken", "token " + token.id() + " (or its hash)", () -> {
      if (!Operations.exists(users, token.userId())) {
        throw Operations.notFound("user " + token.userId());
      }
      tokens.insertOne(Codecs.token(token));
    });
  }

  public Optional<StoredToken> findTokenByHash(String hash) {
    return ops.findOne("findTokenByHash", tokens, eq("hash", hash), Codecs::token);
  }

  public boolean deleteToken(String tokenId) {
    return ops.call("deleteToken", "token " + tokenId,
        () -> tokens.deleteOne(eq("_id", tokenId)).getDeletedCount() == 1);
  }
}
