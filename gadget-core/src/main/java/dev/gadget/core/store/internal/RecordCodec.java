package dev.gadget.core.store.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gadget.core.GadgetJson;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * One record of a journal or snapshot file is one line: the change as JSON, a tab, its CRC-32C as
 * 8 hex digits, and a newline. JSON never contains a raw tab or newline (both are escaped inside
 * strings), so the line can be split safely, and the checksum tells a whole record from a torn or
 * damaged one. Thread-safe.
 */
public final class RecordCodec {
  private static final ObjectMapper JSON = GadgetJson.mapper();
  private static final int TRAILER = 1 + 8 + 1;

  private RecordCodec() {}

  /** A record that is not a whole, intact line. */
  public static final class BadRecordException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean intact;

    public BadRecordException(String message, boolean intact) {
      super(message);
      this.intact = intact;
    }

    /**
     * Whether the line is whole (its checksum matches) but unreadable: written by a newer version
     * or edited by hand, never the torn end of a write.
     */
    public boolean intact() {
      return intact;
    }
  }

  /** The line for {@code value}, newline included. */
  public static byte[] encode(Object value) {
    byte[] json;
    try {
      json = JSON.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a store record as JSON", e);
    }
    CRC32C crc = new CRC32C();
    crc.update(json);
    byte[] out = new byte[json.length + TRAILER];
    System.arraycopy(json, 0, out, 0, json.length);
    out[json.length] = '\t';
    String hex = String.format("%08x", crc.getValue());
    for (int i = 0; i < 8; i++) {
      out[json.length + 1 + i] = (byte) hex.charAt(i);
    }
    out[out.length - 1] = '\n';
    return out;
  }

  /**
   * The value of one line ({@code line[from, to)}, without its newline).
   *
   * @throws BadRecordException if the checksum is missing or wrong, or the JSON is not a
   *     {@code type}
   */
  public static <T> T decode(byte[] line, int from, int to, Class<T> type)
      throws BadRecordException {
    int length = check(line, from, to) + 9;
    try {
      return JSON.readValue(line, from, length - 9, type);
    } catch (java.io.IOException | RuntimeException e) {
      // Intact but unreadable: written by a newer version, or edited by hand.
      throw new BadRecordException("it is not a record this version can read", true);
    }
  }

  /**
   * Checks the checksum of one line ({@code line[from, to)}, without its newline); returns the
   * length of its JSON.
   *
   * @throws BadRecordException if the checksum is missing or wrong
   */
  public static int check(byte[] line, int from, int to) throws BadRecordException {
    int length = to - from;
    if (length < TRAILER || line[to - 9] != '\t') {
      throw new BadRecordException("it has no checksum", false);
    }
    long expected;
    try {
      expected = Long.parseLong(new String(line, to - 8, 8, StandardCharsets.US_ASCII), 16);
    } catch (NumberFormatException e) {
      throw new BadRecordException("its checksum is not hexadecimal", false);
    }
    CRC32C crc = new CRC32C();
    crc.update(line, from, length - 9);
    if (crc.getValue() != expected) {
      throw new BadRecordException("its checksum does not match its content", false);
    }
    return length - 9;
  }
}
