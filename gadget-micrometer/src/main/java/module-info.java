/**
 * Micrometer metrics for Gadget: {@link dev.gadget.micrometer.GadgetMetrics} observes the agent
 * loop, the LLM clients and the server through their listener SPIs and records meters named after
 * OpenTelemetry's GenAI semantic conventions.
 */
module dev.gadget.micrometer {
  requires transitive dev.gadget.core;
  requires transitive micrometer.core;

  exports dev.gadget.micrometer;
}
