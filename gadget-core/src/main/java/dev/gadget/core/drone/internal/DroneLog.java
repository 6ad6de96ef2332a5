package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.internal.SecretShapes;
import dev.gadget.core.drone.DroneListener;
import dev.gadget.core.model.DroneStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drone's execution log in its workspace, {@code .gadget/logs/drone.log} (seeds 000/001,
 * section 7.2; seed 003's debugging steps): one line per thing the drone did (started,
 * connected, a turn begun and ended with its status and message, disconnected, stopped).
 *
 * <p>Bounded: when the file would pass {@code limit} bytes it becomes {@code drone.log.1}
 * (replacing the previous one) and a new file starts, so the two never hold more than twice the
 * limit; a line is cut at 2,000 characters. Never holds a secret: the drone token and every API
 * key the drone was given are replaced by {@code [secret]} wherever they appear, and so is
 * anything shaped like a token, a key or a URL's credentials. Writing never throws into the
 * drone: a failure is logged once through SLF4J. Then it passes each event on to the listener it
 * wraps. Thread-safe.
 */
public final class DroneLog implements DroneListener {
  private static final Logger log = LoggerFactory.getLogger(DroneLog.class);
  private static final int MAX_LINE = 2_000;
  private static final String SECRET = "[secret]";

  private final Path file;
  private final Path rotated;
  private final Clock clock;
  private final long limit;
  private final DroneListener next;
  private final Set<String> secrets = ConcurrentHashMap.newKeySet();
  private boolean closed;
  private boolean failed;

  /**
   * A log in {@code workspaceDir}'s {@code .gadget/logs/} of at most {@code limit} bytes per
   * file, stamped by {@code clock}, that never shows {@code token}, and passes events to
   * {@code next}.
   */
  public DroneLog(Path workspaceDir, Clock clock, long limit, String token, DroneListener next) {
    Path dir = workspaceDir.toAbsolutePath().normalize().resolve(".gadget").resolve("logs");
    this.file = dir.resolve("drone.log");
    this.rotated = dir.resolve("drone.log.1");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (limit < 1_024) {
      throw new IllegalArgumentException("the drone log's limit must be at least 1024 bytes");
    }
    this.limit = limit;
    this.next = Objects.requireNonNull(next, "next");
    secret(token);
  }

  /** Never writes {@code value} (an API key, a token) from now on. */
  public void secret(String value) {
    if (value != null && value.length() >= 4) {
      secrets.add(value);
    }
  }

  /** {@code message} with every secret replaced ({@code null} stays {@code null}). */
  public String redact(String message) {
    if (message == null) {
      return null;
    }
    String out = message;
    for (String s : secrets) {
      out = out.replace(s, SECRET);
    }
    out = SecretShapes.SHAPED.matcher(out).replaceAll(SECRET);
    return SecretShapes.URL_CREDENTIALS.matcher(out).replaceAll("$1" + SECRET + "@");
  }

  /** Appends one line, {@code level} and {@code message}, rotating first when it would not fit. */
  public synchronized void line(String level, String message) {
    if (closed) {
      return;
    }
    String text = redact(String.valueOf(message)).replace('\n', ' ').replace('\r', ' ');
    if (text.length() > MAX_LINE) {
      text = text.substring(0, MAX_LINE) + "…";
    }
    byte[] bytes = (clock.instant() + " " + level + " " + text + "\n")
        .getBytes(StandardCharsets.UTF_8);
    try {
      Files.createDirectories(file.getParent());
      if (Files.exists(file) && Files.size(file) + bytes.length > limit) {
        Files.move(file, rotated, StandardCopyOption.REPLACE_EXISTING);
      }
      Files.write(file, bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      if (!failed) {
        failed = true;
        log.warn("cannot write {}: {}", file, e.getMessage());
      }
    }
  }

  /** Writes nothing more (the workspace may belong to another drone next). */
  public synchronized void close() {
    closed = true;
  }

  @Override
  public void onConnected() {
    line("INFO", "connected to the server");
    next.onConnected();
  }

  @Override
  public void onDisconnected(String reason) {
    line("WARN", "disconnected from the server: " + reason);
    next.onDisconnected(reason);
  }

  @Override
  public void onRefused(String message) {
    line("ERROR", "the server refused this drone: " + message);
    next.onRefused(message);
  }

  @Override
  public void onStatus(DroneStatus status, String turnId) {
    line("INFO", "status " + status.name().toLowerCase(Locale.ROOT)
        + (turnId == null ? "" : ", running turn " + turnId));
    next.onStatus(status, turnId);
  }

  @Override
  public void onTurnEnded(String turnId, String status, String message) {
    onTurnEnded(turnId, status, message, null);
  }

  @Override
  public void onTurnEnded(String turnId, String status, String message,
      dev.gadget.core.model.TurnStats stats) {
    line("error".equals(status) ? "ERROR" : "INFO", "turn " + turnId + " ended " + status
        + (message == null ? "" : ": " + message)
        + (stats == null || stats.toolsSummary().isEmpty() ? "" : ", " + stats.toolsSummary()));
    next.onTurnEnded(turnId, status, message, stats);
  }

}
