package dev.gadget.core.store.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.TurnStatus;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The first fields of a record, read without decoding the rest: what opening a store needs of a
 * finished turn's record (its id, session, seq and status), and of a change to a turn (its id).
 * A record's {@code op} comes first, and a turn's {@code _id}, {@code sessionId}, {@code seq}
 * and {@code status} come before its prompt and blocks, so this reads tens of bytes of a record
 * of tens of kilobytes.
 *
 * @param op the record's operation
 * @param turnId the turn it is about, or null
 * @param sessionId for a {@code createTurn}, the turn's session
 * @param seq for a {@code createTurn}, the turn's seq
 * @param status for a {@code createTurn}, the turn's status
 */
record RecordPeek(String op, String turnId, String sessionId, long seq, TurnStatus status) {
  private static final JsonFactory FACTORY = GadgetJson.mapper().getFactory();
  private static final Map<String, TurnStatus> STATUSES = new HashMap<>();

  static {
    for (TurnStatus s : TurnStatus.values()) {
      STATUSES.put(GadgetJson.mapper().convertValue(s, String.class), s);
    }
  }

  /** Whether this is a finished turn's whole record. */
  boolean finishedTurn() {
    return "createTurn".equals(op) && status != null && status.isTerminal();
  }

  /**
   * Peeks at the JSON in {@code b[from, to)} (checksum already checked).
   *
   * @throws IOException if it is not such a record
   */
  static RecordPeek of(byte[] b, int from, int to) throws IOException {
    try (JsonParser p = FACTORY.createParser(b, from, to - from)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("not an object");
      }
      String op = null;
      String turnId = null;
      RecordPeek head = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if ("op".equals(field) && value == JsonToken.VALUE_STRING) {
          op = p.getText();
        } else if ("turnId".equals(field) && value == JsonToken.VALUE_STRING) {
          turnId = p.getText();
        } else if ("turn".equals(field) && value == JsonToken.START_OBJECT) {
          // op comes first in what this store writes: then the turn's end is never read
          head = turnHead(p, op != null);
        } else {
          p.skipChildren();
        }
        if (op != null && (turnId != null || head != null)) {
          break;
        }
      }
      if (op == null) {
        throw new IOException("no op");
      }
      return "createTurn".equals(op) && head != null ? head
          : new RecordPeek(op, turnId, null, 0, null);
    }
  }

  /** The turn's first fields; {@code stopEarly}: leaves the parser inside the turn. */
  private static RecordPeek turnHead(JsonParser p, boolean stopEarly) throws IOException {
    String id = null;
    String session = null;
    long seq = 0;
    TurnStatus status = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      switch (field) {
        case "_id" -> id = p.getText();
        case "sessionId" -> session = p.getText();
        case "seq" -> seq = p.getLongValue();
        case "status" -> status = STATUSES.get(p.getText());
        default -> p.skipChildren();
      }
      if (stopEarly && id != null && session != null && status != null) {
        break; // seq comes before status
      }
    }
    if (id == null || session == null || status == null) {
      throw new IOException("a turn without its id, session or status");
    }
    return new RecordPeek("createTurn", id, session, seq, status);
  }
}
