package dev.gadget.examples;

import com.sun.net.httpserver.HttpExchange;
import dev.gadget.micrometer.GadgetMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /metrics} of {@code gadget server --metrics}: Gadget's meters ({@link GadgetMetrics})
 * in Prometheus's text format, from a registry of this server's own. No sign-in: it says how busy
 * the server is, never what anyone wrote (docs/METRICS.md).
 */
final class MetricsEndpoint {
  static final String PATH = "/metrics";
  private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final GadgetMetrics metrics;

  /**
   * @param node the cluster node's id, a {@code node} tag on every meter (each node serves its
   *     own), or {@code null} for a server alone
   */
  MetricsEndpoint(String node) {
    if (node != null) {
      registry.config().commonTags("node", node);
    }
    this.metrics = GadgetMetrics.of(registry);
  }

  /** The meters to record into: the server's listener, a drone's LLM clients and tools. */
  GadgetMetrics metrics() {
    return metrics;
  }

  void handle(HttpExchange ex) throws IOException {
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    String method = ex.getRequestMethod();
    if (!ex.getRequestURI().getRawPath().equals(PATH)) {
      WebServer.text(ex, 404, "not found");
    } else if (!method.equals("GET") && !method.equals("HEAD")) {
      ex.getResponseHeaders().set("Allow", "GET, HEAD");
      WebServer.text(ex, 405, "only GET is supported here");
    } else {
      ex.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      WebServer.send(ex, 200, registry.scrape().getBytes(StandardCharsets.UTF_8));
    }
  }
}
