package dev.gadget.core.protocol;

/**
 * A payload that does not fit its record: the message says, in people's words, which field and
 * what was expected ({@code "mode" must be one of "idle", "user", "agent"; got true}), and never
 * quotes Jackson or Java.
 */
public final class PayloadException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  PayloadException(String field, String message) {
    super(message);
    this.field = field;
  }

  /**
   * A payload whose {@code field} is missing although this event needs it (for a field its
   * record leaves optional because another event does not): {@code "field" is required}.
   */
  public static PayloadException required(String field) {
    return new PayloadException(field, "\"" + field + "\" is required");
  }

  /**
   * The field at fault as a path ({@code workOrder.project.slug}), or {@code null} when it is
   * the whole payload.
   */
  public String field() {
    return field;
  }
}
