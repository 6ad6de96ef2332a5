package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/** Plumbing the HTTP clients share. */
public final class HttpSupport {
  /** The default limit on one NDJSON line or SSE event. */
  public static final int DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;

  private HttpSupport() {}

  /** A JDK HTTP client on the shared LLM pool, redirects followed as browsers do. */
  public static HttpClient newHttpClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NORMAL)
        .executor(LlmThreads.executor())
        .build();
  }

  /**
   * A POST of a JSON body. Plain {@code http://} uses HTTP/1.1: the JDK's h2c upgrade loses the
   * request body on some servers.
   */
  public static HttpRequest post(URI uri, byte[] body, String accept, String apiKey,
      Map<String, String> headers, Duration firstByteTimeout) {
    return post(uri, body, accept, "Authorization", apiKey == null ? null : "Bearer " + apiKey,
        headers, firstByteTimeout);
  }

  /**
   * A POST of a JSON body that authenticates with the header {@code authHeader} (such as
   * Anthropic's {@code x-api-key}), sent only when {@code authValue} is not {@code null}.
   */
  public static HttpRequest post(URI uri, byte[] body, String accept, String authHeader,
      String authValue, Map<String, String> headers, Duration firstByteTimeout) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri)
        .timeout(firstByteTimeout)
        .header("Content-Type", "application/json")
        .header("Accept", accept)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if ("http".equals(uri.getScheme().toLowerCase(Locale.ROOT))) {
      b.version(HttpClient.Version.HTTP_1_1);
    }
    if (authValue != null) {
      b.header(authHeader, authValue);
    }
    headers.forEach(b::header);
    return b.build();
  }

  /** {@code base} with {@code path} appended, one slash between them. */
  public static URI resolve(URI base, String path) {
    String s = base.toString();
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return URI.create(s + path);
  }

  /** Checks a base URL: absolute http or https, no query. */
  public static URI checkBaseUrl(URI uri) {
    Objects.requireNonNull(uri, "baseUrl");
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw new IllegalArgumentException("baseUrl must be an absolute http(s) URL: " + uri);
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException("baseUrl must not have a query or fragment: " + uri);
    }
    return uri;
  }

  /** A value for a JSON request field. */
  public static JsonNode toJson(Object value) {
    if (value == null) {
      return Json.NODES.nullNode();
    }
    return value instanceof JsonNode ? (JsonNode) value : Json.MAPPER.valueToTree(value);
  }

  /** Checks a timeout: positive. */
  public static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive");
    }
    return d;
  }
}
