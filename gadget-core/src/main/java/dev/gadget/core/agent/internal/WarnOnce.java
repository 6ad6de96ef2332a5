package dev.gadget.core.agent.internal;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/** Logs a repeated problem at WARN the first time and at DEBUG after that. Thread-safe. */
public final class WarnOnce {
  private final Logger log;
  private final AtomicBoolean warned = new AtomicBoolean();

  /** Logs to {@code log}. */
  public WarnOnce(Logger log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  /**
   * Logs {@code firstFormat} at WARN if this is the first time, else {@code laterFormat} at DEBUG.
   */
  public void log(String firstFormat, String laterFormat, Object... args) {
    if (warned.compareAndSet(false, true)) {
      log.warn(firstFormat, args);
    } else {
      log.debug(laterFormat, args);
    }
  }
}
