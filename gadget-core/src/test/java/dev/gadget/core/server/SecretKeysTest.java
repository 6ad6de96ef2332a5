package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretKeysTest {
  static final byte[] OLD = key(1);
  static final byte[] NEW = key(2);

  static byte[] key(int fill) {
    byte[] k = new byte[32];
    java.util.Arrays.fill(k, (byte) fill);
    return k;
  }

  @Test
  void sealsWithAFreshNonceAndOpensOnlyInItsContext() {
    SecretKeys keys = SecretKeys.of(NEW);
    String a = keys.seal("sk-secret", "alice/p1");
    String b = keys.seal("sk-secret", "alice/p1");
    assertThat(a).startsWith("gk1:" + keys.currentKeyId() + ":").doesNotContain("sk-secret")
        .isNotEqualTo(b);
    assertThat(keys.open(a, "alice/p1")).isEqualTo("sk-secret");
    assertThatThrownBy(() -> keys.open(a, "bob/p1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not open");
    String tampered = a.substring(0, a.length() - 4) + "AAA=";
    assertThatThrownBy(() -> keys.open(tampered, "alice/p1"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(keys.toString()).doesNotContain(Base64.getEncoder().encodeToString(NEW));
  }

  @Test
  void rotationOpensWhatTheOldKeySealedAndSealsWithTheNewOne() {
    String sealedByOld = SecretKeys.of(OLD).seal("sk-1", "c");
    SecretKeys rotated = SecretKeys.of(NEW).withOldKey(OLD);
    assertThat(rotated.open(sealedByOld, "c")).isEqualTo("sk-1");
    assertThat(SecretKeys.keyIdOf(rotated.seal("sk-1", "c"))).isEqualTo(rotated.currentKeyId())
        .isNotEqualTo(SecretKeys.keyIdOf(sealedByOld));
    assertThatThrownBy(() -> SecretKeys.of(NEW).open(sealedByOld, "c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(SecretKeys.keyIdOf(sealedByOld))
        .hasMessageContaining(SecretKeys.ENV_OLD_KEYS);
  }

  @Test
  void theEnvironmentWinsElseAKeyFileIsCreatedOwnerOnlyAndReused(@TempDir Path dir)
      throws Exception {
    String b64 = Base64.getEncoder().encodeToString(NEW);
    String old = Base64.getEncoder().encodeToString(OLD);
    SecretKeys fromEnv = SecretKeys.fromEnvironmentOr(dir,
        Map.of(SecretKeys.ENV_KEY, b64, SecretKeys.ENV_OLD_KEYS, old));
    assertThat(fromEnv.currentKeyId()).isEqualTo(SecretKeys.of(NEW).currentKeyId());
    assertThat(fromEnv.open(SecretKeys.of(OLD).seal("x", "c"), "c")).isEqualTo("x");
    assertThat(dir.resolve(SecretKeys.KEY_FILE)).doesNotExist();

    SecretKeys first = SecretKeys.fromEnvironmentOr(dir, Map.of());
    Path file = dir.resolve(SecretKeys.KEY_FILE);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    SecretKeys again = SecretKeys.fromEnvironmentOr(dir, Map.of());
    assertThat(again.currentKeyId()).isEqualTo(first.currentKeyId());
    assertThat(again.open(first.seal("x", "c"), "c")).isEqualTo("x");

    assertThatThrownBy(() -> SecretKeys.fromBase64("not base64!", null))
        .hasMessageContaining("openssl rand -base64 32");
    assertThatThrownBy(() -> SecretKeys.fromBase64("c2hvcnQ=", null))
        .hasMessageContaining("32 bytes");
  }
}
