package dev.gadget.store.mongo.internal;

import com.mongodb.client.model.Updates;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Single fields of a BSON document, as {@link Codecs} writes and reads them: enums are their
 * lower-case wire names; instants are BSON dates (milliseconds) with any finer part in a
 * companion {@code <field>Nanos} field written only when non-zero; absent values are omitted.
 * Reading is tolerant of what a person or an older writer may have left: any BSON number where
 * a number is expected, ISO-8601 strings or epoch milliseconds where a date is expected. A field
 * that cannot be read is an {@link IllegalArgumentException} naming it. Stateless.
 */
final class Fields {
  private Fields() {}

  // ---- writing

  /** The wire name of an enum constant: its lower-case name, as {@code GadgetJson} writes it. */
  static String wire(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  /** The field holding the part of {@code field}'s instant finer than a millisecond. */
  static String nanosField(String field) {
    return field + "Nanos";
  }

  /** A BSON date for {@code instant}: its millisecond, finer parts dropped. */
  static Date date(Instant instant) {
    return new Date(instant.toEpochMilli());
  }

  /**
   * The updates that set {@code field} to {@code instant} as {@link #putInstant} writes it,
   * removing a finer part left from an earlier value.
   */
  static List<Bson> setInstant(String field, Instant instant) {
    int nanos = subMillisNanos(instant);
    return List.of(Updates.set(field, date(instant)), nanos == 0
        ? Updates.unset(nanosField(field))
        : Updates.set(nanosField(field), nanos));
  }

  /** The nanoseconds of {@code instant} past its millisecond, 0 to 999,999. */
  static int subMillisNanos(Instant instant) {
    return instant.getNano() % 1_000_000;
  }

  /**
   * Puts {@code instant} as a BSON date under {@code field} and, only when it is finer than a
   * millisecond, the rest under {@link #nanosField}, so that nothing is lost.
   */
  static Document putInstant(Document d, String field, Instant instant) {
    d.append(field, date(instant));
    int nanos = subMillisNanos(instant);
    if (nanos != 0) {
      d.append(nanosField(field), nanos);
    }
    return d;
  }

  /** Puts {@code value} under {@code key} unless it is {@code null}. */
  static void putIfPresent(Document d, String key, Object value) {
    if (value != null) {
      d.append(key, value);
    }
  }

  // ---- reading

  static <E extends Enum<E>> E parse(Class<E> type, String wire) {
    for (E e : type.getEnumConstants()) {
      if (wire(e).equals(wire)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "unknown " + type.getSimpleName() + " '" + wire + "'");
  }

  private static Object required(Document d, String key) {
    Object v = d.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing field '" + key + "'");
    }
    return v;
  }

  static String string(Document d, String key) {
    Object v = required(d, key);
    if (!(v instanceof String s)) {
      throw new IllegalArgumentException(
          "field '" + key + "' is a " + v.getClass().getSimpleName() + ", not a string");
    }
    return s;
  }

  static String optString(Document d, String key) {
    return d.get(key) == null ? null : string(d, key);
  }

  static long number(Document d, String key) {
    Object v = required(d, key);
    if (!(v instanceof Number n)) {
      throw new IllegalArgumentException(
          "field '" + key + "' is a " + v.getClass().getSimpleName() + ", not a number");
    }
    return n.longValue();
  }

  static long optNumber(Document d, String key) {
    return d.get(key) == null ? 0 : number(d, key);
  }

  static Instant instant(Document d, String key) {
    Object nanos = d.get(nanosField(key));
    Instant at = millisInstant(d, key);
    if (nanos == null) {
      return at;
    }
    if (!(nanos instanceof Number n) || n.longValue() < 0 || n.longValue() >= 1_000_000) {
      throw new IllegalArgumentException(
          "field '" + nanosField(key) + "' is not a number from 0 to 999999");
    }
    return at.plusNanos(n.longValue());
  }

  private static Instant millisInstant(Document d, String key) {
    Object v = required(d, key);
    if (v instanceof Date date) {
      return date.toInstant();
    }
    if (v instanceof String s) {
      try {
        return Instant.parse(s);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("field '" + key + "' is not an ISO-8601 instant", e);
      }
    }
    if (v instanceof Long || v instanceof Integer) {
      return Instant.ofEpochMilli(((Number) v).longValue());
    }
    throw new IllegalArgumentException(
        "field '" + key + "' is a " + v.getClass().getSimpleName() + ", not a date");
  }

  static Instant optInstant(Document d, String key) {
    return d.get(key) == null ? null : instant(d, key);
  }

  static List<Document> documents(Document d, String key) {
    Object v = d.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> list)) {
      throw new IllegalArgumentException("field '" + key + "' is not an array");
    }
    List<Document> out = new ArrayList<>(list.size());
    for (Object o : list) {
      if (!(o instanceof Document doc)) {
        throw new IllegalArgumentException("field '" + key + "' holds a non-document");
      }
      out.add(doc);
    }
    return out;
  }
}
