package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * One inner step of a composite synthesized tool's run: one of its components ran, as the drone
 * observed it (not as the tool reported it; see docs/SKILLS-AND-TOOLS.md, "Synthesized tools").
 *
 * @param name the component's name (a synthesized tool of the project, at most
 *     {@value #MAX_NAME} characters)
 * @param exitCode its exit code, or {@code null} when it did not finish (the composite was
 *     killed, timed out or cancelled while it ran); not written when null
 * @param durationMs how long it ran, in milliseconds, or {@code null} when it did not finish or
 *     the time could not be read; not written when null
 */
public record ToolStep(String name,
    @JsonInclude(JsonInclude.Include.NON_NULL) Integer exitCode,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long durationMs) {
  /** The longest name. */
  public static final int MAX_NAME = 64;
  /** The most steps one tool call keeps: later ones are left out. */
  public static final int MAX_STEPS = 100;

  public ToolStep {
    Objects.requireNonNull(name, "name");
    if (name.isBlank() || name.length() > MAX_NAME) {
      throw new IllegalArgumentException("a tool step's name must be 1 to " + MAX_NAME
          + " characters; got " + name.length());
    }
    if (durationMs != null && durationMs < 0) {
      throw new IllegalArgumentException("a tool step's durationMs must not be negative");
    }
  }

  /** Whether it finished with exit code 0. */
  public boolean succeeded() {
    return exitCode != null && exitCode == 0;
  }
}
