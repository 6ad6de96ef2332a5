package dev.gadget.core.protocol;

/**
 * The longest strings {@link Protocol#payload} takes (in a page's requests, a drone's events and
 * auth payload), in characters as Java and JavaScript count them (UTF-16 code units,
 * {@link String#length()}). A longer value is refused with {@code {"error": "bad <event>
 * payload: \"<field>\" must be at most N characters; got M"}} and nothing is stored.
 * {@code docs/PROTOCOL.md} ("Limits") says why each is what it is.
 */
public final class Limits {
  private Limits() {}

  /** Ids ({@code sessionId}, {@code turnId}, …) and other short words such as a prompt's mode. */
  public static final int ID = 100;

  /** Names: a project's, a chat session's. */
  public static final int NAME = 200;

  /** A project's slug, its directory name in a workspace. */
  public static final int SLUG = 100;

  /** What a slug may hold: letters, digits, {@code .}, {@code _} and {@code -}. */
  public static final String SLUG_PATTERN = "[A-Za-z0-9._-]+";

  /** A drone's host name: the longest DNS name. */
  public static final int HOSTNAME = 253;

  /** A path, such as a drone's workspace directory: Linux's {@code PATH_MAX}. */
  public static final int PATH = 4_096;

  /** A project's git URL. */
  public static final int GIT_URL = 2_000;

  /**
   * A prompt. Written as JSON a character takes at most 6 bytes (a control character is
   * escaped as a backslash, {@code u} and four hex digits), so the largest prompt's
   * {@code submitPrompt} (600,000 bytes at most, with room for the rest of the packet) stays
   * below the WebSocket transport's 1,000,000-byte frame limit, whatever it holds.
   */
  public static final int PROMPT = 100_000;

  /** A git branch's name, as a page names it for a commit. */
  public static final int BRANCH = 200;

  /** A commit message. */
  public static final int COMMIT_MESSAGE = 10_000;
}
