package dev.gadget.core.drone.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Hands each distinct problem to a reporter once per drone (the skills and synthesized tools of
 * a project are read every turn; their problems are told once). Remembers at most
 * {@link #MAX_REPORTED}; past it, nothing new is reported. Thread-safe.
 */
final class ReportOnce implements Consumer<String> {
  /** The most distinct problems remembered. */
  static final int MAX_REPORTED = 1000;

  private final Consumer<String> report;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  ReportOnce(Consumer<String> report) {
    this.report = report;
  }

  @Override
  public void accept(String problem) {
    if (reported.size() < MAX_REPORTED && reported.add(problem)) {
      report.accept(problem);
    }
  }
}
