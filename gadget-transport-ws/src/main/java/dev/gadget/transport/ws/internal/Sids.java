package dev.gadget.transport.ws.internal;

import java.security.SecureRandom;
import java.util.Base64;

/** Random session and socket ids: 15 random bytes as 20 base64url characters, like Socket.IO's. */
public final class Sids {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Sids() {}

  public static String next() {
    byte[] bytes = new byte[15];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
