package dev.gadget.core.store;

import dev.gadget.core.Ids;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;

/**
 * Issues and checks bearer tokens over a {@link ChatStore}, which only ever sees their SHA-256
 * hashes. A token is {@code gdt_} followed by 43 URL-safe base64 characters (256 random bits), so
 * an unsalted hash is safe to store and to look up. Thread-safe.
 */
public final class Tokens {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String PREFIX = "gdt_";

  private final ChatStore store;
  private final Clock clock;

  /** Tokens kept in {@code store}. */
  public Tokens(ChatStore store) {
    this(store, Clock.systemUTC());
  }

  /** Tokens kept in {@code store}, stamped by {@code clock}. */
  public Tokens(ChatStore store, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * A token just issued: the only time its plaintext exists on the server. Show it once; it is
   * never stored. {@link #toString()} redacts it.
   *
   * @param token the bearer token
   * @param stored what the store keeps of it
   */
  public record Issued(String token, StoredToken stored) {
    public Issued {
      Objects.requireNonNull(token, "token");
      Objects.requireNonNull(stored, "stored");
    }

    @Override
    public String toString() {
      return "Issued[token=<redacted>, stored=" + stored + "]";
    }
  }

  /** Issues a new token for {@code userId}. */
  public Issued issue(String userId, TokenKind kind, String label) {
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(kind, "kind");
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    StoredToken stored =
        new StoredToken(Ids.next(), userId, kind, label, hash(token), clock.instant());
    store.saveToken(stored);
    return new Issued(token, stored);
  }

  /**
   * The stored token matching {@code token}, if it exists and is of {@code kind}. A malformed,
   * unknown or wrong-kind token gives empty; the caller says why in general terms only.
   */
  public Optional<StoredToken> authenticate(String token, TokenKind kind) {
    if (token == null || !token.startsWith(PREFIX) || token.length() > 256) {
      return Optional.empty();
    }
    return store.findTokenByHash(hash(token)).filter(t -> t.kind() == kind);
  }

  /** Lower-case hex SHA-256 of the token's UTF-8 bytes. */
  public static String hash(String token) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(token.getBytes(StandardCharsets.UTF_8));
      StringBuilder sb = new StringBuilder(64);
      for (byte b : digest) {
        sb.append(Character.forDigit((b >>> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new StoreException(StoreException.Reason.FAILED, "SHA-256 unavailable", e);
    }
  }
}
