package dev.gadget.core.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The server's secret keys, which seal the API keys users give their providers before the store
 * sees them: AES-256-GCM, a fresh 96-bit nonce per seal, the owner and provider bound in as
 * associated data (a sealed key copied to another user's provider does not open).
 *
 * <p>A sealed value is {@code gk1:<key id>:<base64 nonce+ciphertext+tag>}. The key id is the
 * first 8 bytes of the key's SHA-256, in hex; {@link #seal} always uses the current key and
 * {@link #open} any key this object holds, so rotating means starting with a new current key and
 * the old one kept as {@link #withOldKey old} until every provider has been saved again (see
 * {@code docs/PROVIDERS.md}). Immutable and thread-safe; {@link #toString()} names key ids only.
 */
public final class SecretKeys {
  /** The environment variable that holds the current key, base64 of 32 bytes. */
  public static final String ENV_KEY = "GADGET_SECRET_KEY";
  /** The environment variable that holds old keys still to be opened, comma separated. */
  public static final String ENV_OLD_KEYS = "GADGET_OLD_SECRET_KEYS";
  /** The file in the data directory that holds the key when the environment gives none. */
  public static final String KEY_FILE = "secret.key";

  private static final String PREFIX = "gk1:";
  private static final int NONCE_BYTES = 12;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String currentId;
  private final Map<String, SecretKeySpec> keys;

  private SecretKeys(String currentId, Map<String, SecretKeySpec> keys) {
    this.currentId = currentId;
    this.keys = Map.copyOf(keys);
  }

  /** Keys with {@code key} (32 bytes) as the current one. */
  public static SecretKeys of(byte[] key) {
    SecretKeySpec spec = spec(key);
    String id = idOf(key);
    return new SecretKeys(id, Map.of(id, spec));
  }

  /** These keys, also able to open what {@code oldKey} (32 bytes) sealed. */
  public SecretKeys withOldKey(byte[] oldKey) {
    Map<String, SecretKeySpec> all = new LinkedHashMap<>(keys);
    all.putIfAbsent(idOf(oldKey), spec(oldKey));
    return new SecretKeys(currentId, all);
  }

  /** Keys from base64 text: the current key, and old ones (comma separated, may be null). */
  public static SecretKeys fromBase64(String current, String old) {
    SecretKeys k = of(decode(current, ENV_KEY));
    if (old != null) {
      for (String part : old.split(",")) {
        if (!part.isBlank()) {
          k = k.withOldKey(decode(part.trim(), ENV_OLD_KEYS));
        }
      }
    }
    return k;
  }

  /**
   * The key {@value #ENV_KEY} names (with {@value #ENV_OLD_KEYS}) if it is set; otherwise the
   * one in {@code dataDir}/{@value #KEY_FILE}, which is created readable by its owner only the
   * first time.
   */
  public static SecretKeys fromEnvironmentOr(Path dataDir, Map<String, String> env)
      throws IOException {
    String fromEnv = env.get(ENV_KEY);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromBase64(fromEnv, env.get(ENV_OLD_KEYS));
    }
    Path file = dataDir.resolve(KEY_FILE);
    if (!Files.exists(file)) {
      byte[] key = new byte[32];
      RANDOM.nextBytes(key);
      Files.createDirectories(dataDir);
      try {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException e) {
        Files.createFile(file);
      } catch (FileAlreadyExistsException e) {
        return fromBase64(Files.readString(file).trim(), env.get(ENV_OLD_KEYS));
      }
      Files.writeString(file, Base64.getEncoder().encodeToString(key) + "\n");
    }
    return fromBase64(Files.readString(file).trim(), env.get(ENV_OLD_KEYS));
  }

  /** The id of the key {@link #seal} uses. */
  public String currentKeyId() {
    return currentId;
  }

  /**
   * A key for {@code purpose} derived from the current key (its HMAC-SHA256 of the purpose, 32
   * bytes): the same on every server that has the same secret key, and telling nothing of it.
   * A cluster's nodes prove to each other with one that they share it (docs/CLUSTER.md).
   */
  public byte[] derive(String purpose) {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(keys.get(currentId));
      return mac.doFinal(purpose.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** {@code secret} sealed with the current key, bound to {@code context}. */
  public String seal(String secret, String context) {
    Objects.requireNonNull(secret, "secret");
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher c = cipher(Cipher.ENCRYPT_MODE, keys.get(currentId), nonce, context);
      byte[] sealed = c.doFinal(secret.getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[nonce.length + sealed.length];
      System.arraycopy(nonce, 0, out, 0, nonce.length);
      System.arraycopy(sealed, 0, out, nonce.length, sealed.length);
      return PREFIX + currentId + ":" + Base64.getEncoder().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not seal a secret: " + e.getMessage());
    }
  }

  /**
   * What {@link #seal} sealed with {@code context}.
   *
   * @throws IllegalArgumentException when it is not a sealed value, its key is not held, or it
   *     does not open (damaged, or sealed for another context)
   */
  public String open(String sealed, String context) {
    String[] parts = sealed == null ? new String[0] : sealed.split(":", 3);
    if (parts.length != 3 || !sealed.startsWith(PREFIX)) {
      throw new IllegalArgumentException("not a sealed secret");
    }
    SecretKeySpec key = keys.get(parts[1]);
    if (key == null) {
      throw new IllegalArgumentException("the secret was sealed with key " + parts[1]
          + ", which this server does not hold (set " + ENV_OLD_KEYS + ")");
    }
    try {
      byte[] all = Base64.getDecoder().decode(parts[2]);
      byte[] nonce = java.util.Arrays.copyOf(all, NONCE_BYTES);
      Cipher c = cipher(Cipher.DECRYPT_MODE, key, nonce, context);
      byte[] plain = c.doFinal(all, NONCE_BYTES, all.length - NONCE_BYTES);
      return new String(plain, StandardCharsets.UTF_8);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("the sealed secret does not open with key " + parts[1]);
    }
  }

  /** The key id a sealed value names, or {@code null} if it is not one. */
  public static String keyIdOf(String sealed) {
    String[] parts = sealed == null ? new String[0] : sealed.split(":", 3);
    return parts.length == 3 && sealed.startsWith(PREFIX) ? parts[1] : null;
  }

  @Override
  public String toString() {
    return "SecretKeys[current=" + currentId + ", held=" + keys.keySet() + "]";
  }

  private static Cipher cipher(int mode, SecretKeySpec key, byte[] nonce, String context)
      throws GeneralSecurityException {
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(mode, key, new GCMParameterSpec(128, nonce));
    c.updateAAD(Objects.requireNonNull(context, "context").getBytes(StandardCharsets.UTF_8));
    return c;
  }

  private static SecretKeySpec spec(byte[] key) {
    if (key == null || key.length != 32) {
      throw new IllegalArgumentException("a secret key must be 32 bytes (256 bits)");
    }
    return new SecretKeySpec(key.clone(), "AES");
  }

  private static String idOf(byte[] key) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(key);
      return HexFormat.of().formatHex(hash, 0, 8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] decode(String base64, String name) {
    try {
      return Base64.getDecoder().decode(base64.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " is not base64 (make one with: "
          + "openssl rand -base64 32)");
    }
  }
}
