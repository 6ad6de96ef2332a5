package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.protocol.ProviderEvents;
import dev.gadget.core.server.RuntimeFixture.Page;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A user cannot make the server fetch from its own loopback, its private network or a metadata
 * address by adding a provider there; the operator decides which hosts users may name.
 */
class ProviderHostsTest extends RuntimeTestBase {
  HttpServer service;
  final AtomicInteger hits = new AtomicInteger();

  @AfterEach
  void stopService() {
    if (service != null) {
      service.stop(0);
    }
  }

  /** A service on the server's loopback: a model list, or a redirect to the metadata address. */
  private String service(boolean redirect) throws Exception {
    return service(redirect, 0);
  }

  /** As above; {@code padding} bytes of spaces make the model list that much longer. */
  private String service(boolean redirect, int padding) throws Exception {
    service = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    service.createContext("/", exchange -> {
      hits.incrementAndGet();
      if (padding > 0) {
        exchange.sendResponseHeaders(200, 0); // chunked: the length is not said up front
        byte[] spaces = " ".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
        try {
          exchange.getResponseBody().write("{\"data\":[".getBytes(StandardCharsets.UTF_8));
          for (int sent = 0; sent < padding; sent += spaces.length) {
            exchange.getResponseBody().write(spaces);
          }
          exchange.getResponseBody().write("]}".getBytes(StandardCharsets.UTF_8));
        } catch (java.io.IOException reset) {
          // the server stopped reading past its bound: what this test expects
        }
      } else if (redirect) {
        exchange.getResponseHeaders().add("Location", "http://169.254.169.254/latest/");
        exchange.sendResponseHeaders(302, -1);
      } else {
        byte[] body = "{\"data\":[{\"id\":\"internal-secret-model\"}]}"
            .getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
      }
      exchange.close();
    });
    service.start();
    return "http://127.0.0.1:" + service.getAddress().getPort() + "/v1";
  }

  private Page page(ProviderHosts hosts) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b.providerHosts(hosts));
    return fx.page(fx.person("mallory").pageToken()).connected();
  }

  private static JsonNode save(Page page, String url) throws Exception {
    return page.request(ProviderEvents.SAVE_PROVIDER,
        Map.of("name", "mine", "kind", "openai", "baseUrl", url));
  }

  @Test
  void byDefaultNoUserNamesALoopbackPrivateOrMetadataAddress() throws Exception {
    String loopback = service(false);
    Page page = page(ProviderHosts.publicOnly());
    assertThat(save(page, loopback).path("error").asText()).isEqualTo("the provider's host "
        + "127.0.0.1 is a loopback address, which users may not name on this server (its "
        + "operator can allow private providers: gadget server --allow-private-providers, or "
        + "list hosts with --provider-hosts)");
    for (String url : List.of("http://169.254.169.254/latest", "http://10.1.2.3:8080/v1",
        "http://192.168.0.9/v1", "http://172.20.0.1/v1", "http://100.100.1.1/v1",
        "http://[::1]:11434", "http://[fd00::1]/v1", "http://[fe80::1]/v1", "http://0.0.0.0:80",
        "http://[::ffff:127.0.0.1]/v1", "http://[::127.0.0.1]/v1", "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:c0a8:1::]/v1", "http://2130706433/v1",
        "http://localhost:" + URI.create(loopback).getPort())) {
      assertThat(save(page, url).path("error").asText()).as(url)
          .startsWith("the provider's host ").contains("address, which users may not name");
    }
    assertThat(page.request(ProviderEvents.LIST_PROVIDERS, Map.of()).path("providers"))
        .hasSize(1); // only the server's own
    assertThat(hits).hasValue(0);
  }

  @Test
  void anOperatorCanAllowPrivateHostsButNeverLinkLocalOnes() throws Exception {
    String loopback = service(false);
    Page page = page(ProviderHosts.allowPrivate());
    String id = save(page, loopback).path("provider").path("id").asText();
    assertThat(page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", id))
        .path("models").toString()).isEqualTo("[\"internal-secret-model\"]");
    assertThat(save(page, "http://169.254.169.254/latest").path("error").asText())
        .isEqualTo("the provider's host 169.254.169.254 is a link-local address, which users "
            + "may not name on this server");
  }

  @Test
  void aModelListIsReadUpTo2MbAndALongerOneRefusedInWords() throws Exception {
    String loopback = service(false, 3 * 1024 * 1024);
    Page page = page(ProviderHosts.allowPrivate());
    String id = save(page, loopback).path("provider").path("id").asText();
    assertThat(page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", id))
        .path("error").asText()).isEqualTo("mine at " + loopback
            + "/models sent a model list larger than 2 MB");
  }

  @Test
  void anAllowListAdmitsOnlyItsHostsAndARedirectIsNeverFollowed() throws Exception {
    String loopback = service(true);
    int port = URI.create(loopback).getPort();
    Page page = page(ProviderHosts.onlyThese("127.0.0.1:" + port));
    assertThat(save(page, "https://api.openai.com/v1").path("error").asText()).isEqualTo(
        "this server lets users add providers on 127.0.0.1:" + port + " only, not "
            + "api.openai.com");
    String id = save(page, loopback).path("provider").path("id").asText();
    JsonNode listed = page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", id));
    assertThat(listed.path("error").asText()).isEqualTo("mine at " + loopback
        + "/models answered HTTP 302");
    assertThat(hits).hasValue(1);
  }
}
