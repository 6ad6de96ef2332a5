package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private final Clock clock = Clock.fixed(Instant.parse("2025-06-01T10:00:00Z"), ZoneOffset.UTC);

  private static HttpHeaders headers(Map<String, List<String>> map) {
    return HttpHeaders.of(map, (k, v) -> true);
  }

  @Test
  void secondsAndHttpDates() {
    assertThat(RetryAfter.parse("7", clock)).isEqualTo(Duration.ofSeconds(7));
    assertThat(RetryAfter.parse(" 0 ", clock)).isEqualTo(Duration.ZERO);
    assertThat(RetryAfter.parse("Sun, 01 Jun 2025 10:00:30 GMT", clock))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(RetryAfter.parse("Sun, 01 Jun 2025 09:00:00 GMT", clock)).isEqualTo(Duration.ZERO);
    assertThat(RetryAfter.parse("soon", clock)).isNull();
    assertThat(RetryAfter.parse("-1", clock)).isNull();
    assertThat(RetryAfter.parse("99999999999999999999999", clock)).isNull();
  }

  @Test
  void openAisRetryAfterMsWinsWhenReadable() {
    assertThat(RetryAfter.of(headers(Map.of("retry-after-ms", List.of("1500"),
        "Retry-After", List.of("2"))), clock)).isEqualTo(Duration.ofMillis(1500));
    assertThat(RetryAfter.of(headers(Map.of("retry-after-ms", List.of("x"),
        "Retry-After", List.of("2"))), clock)).isEqualTo(Duration.ofSeconds(2));
    assertThat(RetryAfter.of(headers(Map.of()), clock)).isNull();
  }
}
