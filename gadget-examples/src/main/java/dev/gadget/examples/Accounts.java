package dev.gadget.examples;

import dev.gadget.core.Ids;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.Tokens;
import java.time.Clock;
import java.util.Optional;
import java.util.regex.Pattern;

/** Users and their token pairs: one token to sign in to the page, one for a drone. */
final class Accounts {
  static final String ADMIN = "admin";
  private static final Pattern USERNAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  private Accounts() {}

  /**
   * A user with freshly issued tokens. The tokens exist in plaintext only here; the store keeps
   * their hashes. {@link #toString()} redacts them.
   */
  record Issued(User user, String pageToken, String droneToken) {
    @Override
    public String toString() {
      return "Issued[user=" + user.username() + ", tokens=<redacted>]";
    }
  }

  /**
   * Creates a user and issues a page token and a drone token.
   *
   * @throws UsageException for a malformed name
   * @throws CommandException if the name is taken
   */
  static Issued create(ChatStore store, String username) {
    checkUsername(username);
    if (store.findUserByName(username).isPresent()) {
      throw new CommandException("the user '" + username + "' already exists; "
          + "'java -jar gadget.jar user token " + username + "' issues new tokens");
    }
    User user = new User(Ids.next(), username, username, Clock.systemUTC().instant());
    store.createUser(user);
    return issue(store, user);
  }

  /**
   * Checks a user name's form, before anything is stored.
   *
   * @throws UsageException for a malformed name, saying what a name may be
   */
  static void checkUsername(String username) {
    if (!USERNAME.matcher(username).matches()) {
      throw new UsageException("'" + username + "' is not a user name: a user name is 1 to 64 "
          + "letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
  }

  /**
   * Issues a new token pair for an existing user (older tokens keep working).
   *
   * @throws CommandException if there is no such user
   */
  static Issued newTokens(ChatStore store, String username) {
    User user = store.findUserByName(username)
        .orElseThrow(() -> new CommandException("there is no user '" + username + "'"));
    return issue(store, user);
  }

  /** Creates the {@code admin} user with tokens at a store's first start; empty otherwise. */
  static Optional<Issued> bootstrapAdmin(ChatStore store) {
    if (store.findUserByName(ADMIN).isPresent()) {
      return Optional.empty();
    }
    return Optional.of(create(store, ADMIN));
  }

  private static Issued issue(ChatStore store, User user) {
    Tokens tokens = new Tokens(store);
    return new Issued(user, tokens.issue(user.id(), TokenKind.USER, "page").token(),
        tokens.issue(user.id(), TokenKind.DRONE, "drone").token());
  }
}
