package dev.gadget.core.llm.internal;

import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Reads how long a server asks us to wait: {@code retry-after-ms} (OpenAI's, in milliseconds)
 * if present, else {@code Retry-After} as delta-seconds or an HTTP date. A date in the past is
 * zero; anything unreadable is absent.
 */
public final class RetryAfter {
  private RetryAfter() {}

  /** The wait the headers ask for, or {@code null}. */
  public static Duration of(HttpHeaders headers, Clock clock) {
    Optional<String> ms = headers.firstValue("retry-after-ms");
    if (ms.isPresent()) {
      Duration d = parseMillis(ms.get());
      if (d != null) {
        return d;
      }
    }
    return headers.firstValue("retry-after").map(v -> parse(v, clock)).orElse(null);
  }

  /** Parses a {@code Retry-After} value, or {@code null} when it is neither form. */
  public static Duration parse(String value, Clock clock) {
    String v = value.strip();
    if (v.isEmpty()) {
      return null;
    }
    if (v.chars().allMatch(Character::isDigit)) {
      try {
        return Duration.ofSeconds(Long.parseLong(v));
      } catch (NumberFormatException | ArithmeticException tooLarge) {
        return null;
      }
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(clock.instant(), at);
      return d.isNegative() ? Duration.ZERO : d;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Duration parseMillis(String value) {
    try {
      double ms = Double.parseDouble(value.strip());
      return ms >= 0 && ms < 1e12 ? Duration.ofNanos((long) (ms * 1_000_000)) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
