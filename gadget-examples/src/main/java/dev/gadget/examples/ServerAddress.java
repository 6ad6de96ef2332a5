package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.WorkOrder;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Locale;

/**
 * A drone's {@code --server}: the server's page URL, and where its Socket.IO transport listens,
 * which the server's {@code /api/config} says.
 */
final class ServerAddress {
  static final String EXAMPLE = "http://127.0.0.1:" + ServerCommand.DEFAULT_PORT + "/";

  private final URI page;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ServerAddress(URI page) {
    this.page = page;
  }

  /**
   * Reads {@code --server}: an {@code http(s)://} URL, or {@code host:port}, which means
   * {@code http://host:port/}.
   *
   * @throws UsageException for anything else, saying what is expected
   */
  static ServerAddress parse(String value) {
    String v = value.strip();
    String url = v.contains("://") ? v : "http://" + v;
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw notAUrl(value);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null
        || uri.getRawUserInfo() != null || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
      throw notAUrl(value);
    }
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    return new ServerAddress(URI.create(scheme + "://" + uri.getRawAuthority() + path));
  }

  /** Reads a {@code --server} of one URL or several, {@code ,}-separated (a cluster's nodes). */
  static java.util.List<ServerAddress> parseAll(String value) {
    java.util.List<ServerAddress> all = new java.util.ArrayList<>();
    for (String one : value.split(",", -1)) {
      all.add(parse(one));
    }
    return all;
  }

  private static UsageException notAUrl(String value) {
    return new UsageException("--server takes the server's page URL, such as " + EXAMPLE
        + ", or host:port (meaning http://host:port/); not '"
        + WorkOrder.ProjectRef.withoutCredentials(value) + "'");
  }

  /** The page URL, such as {@code http://127.0.0.1:7700/}. */
  URI page() {
    return page;
  }

  @Override
  public String toString() {
    return page.toString();
  }

  /** The server did not answer; worth asking again later. */
  static final class Unreachable extends Exception {
    private static final long serialVersionUID = 1L;

    Unreachable(String message, Throwable cause) {
      super(message, cause, false, false);
    }
  }

  /**
   * Asks {@code /api/config} where the server's Socket.IO transport listens.
   *
   * @throws Unreachable when the server cannot be reached or answers 5xx (it may be starting)
   * @throws CommandException when what answers is not a Gadget server
   */
  URI socketUri() throws Unreachable, InterruptedException {
    URI config = page.resolve("/api/config");
    JsonNode body;
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(config)
          .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() >= 500) {
        throw new Unreachable("it answered HTTP " + r.statusCode(), null);
      }
      if (r.statusCode() != 200) {
        throw new CommandException(config + " answered HTTP " + r.statusCode()
            + ": is this a Gadget server?");
      }
      body = GadgetJson.mapper().readTree(r.body());
    } catch (IOException e) {
      throw new Unreachable(reason(e), e);
    }
    int port = body == null ? -1 : body.path("socketPort").asInt(-1);
    if (port <= 0 || port > 65535) {
      throw new CommandException(config + " does not name a socketPort: is this a Gadget "
          + "server?");
    }
    String host = page.getHost().contains(":") && !page.getHost().startsWith("[")
        ? "[" + page.getHost() + "]" : page.getHost();
    return URI.create(page.getScheme() + "://" + host + ":" + port);
  }

  /** Why a request failed, in a few words. */
  static String reason(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return "unknown host";
      }
    }
    if (e instanceof HttpConnectTimeoutException) {
      return "no answer to connecting within 5 s";
    }
    if (e instanceof HttpTimeoutException) {
      return "no answer within 10 s";
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "connection refused";
      }
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
