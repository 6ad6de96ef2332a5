package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  private final RetryPolicy policy = new RetryPolicy(5, Duration.ofMillis(100),
      Duration.ofMillis(1000), Duration.ofSeconds(30));

  @Test
  void backoffDoublesUpToTheMaximumWithHalfOfItJitter() {
    assertThat(policy.backoff(0, 0.0)).isEqualTo(Duration.ofMillis(50));
    assertThat(policy.backoff(0, 0.999999)).isBetween(Duration.ofMillis(99), Duration.ofMillis(100));
    assertThat(policy.backoff(1, 0.0)).isEqualTo(Duration.ofMillis(100));
    assertThat(policy.backoff(2, 0.5)).isEqualTo(Duration.ofMillis(300));
    assertThat(policy.backoff(10, 0.0)).isEqualTo(Duration.ofMillis(500));
    assertThat(policy.backoff(1000, 1.0)).isEqualTo(Duration.ofMillis(1000));
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> new RetryPolicy(-1, Duration.ZERO, Duration.ZERO, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryPolicy(1, Duration.ofMillis(-1), Duration.ZERO, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(RetryPolicy.NONE.maxRetries()).isZero();
  }
}
