package dev.gadget.examples;

import static dev.gadget.examples.CommandsFixture.find;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.examples.CommandsFixture.Out;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gadget user} while a server has the embedded store open (through the server's admin
 * API, authenticated by the secret it publishes in the data directory) and after it stopped (on
 * the directory itself); and the admin API refusing anyone without the secret.
 */
class AdminApiTest {
  @TempDir Path tmp;
  final List<Running> running = new ArrayList<>();
  final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stopAll() {
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  private Running server(Out out, String dir) throws Exception {
    ServerCommand command = new ServerCommand();
    Running r = command.run(Args.parse(command.options(), List.of("--port", "0", "--data-dir",
        dir, "--llm", "scripted")), out.console(Map.of()));
    running.add(r);
    return r;
  }

  private static Out user(int expectedExit, String... argv) {
    Out o = new Out();
    assertThat(Main.run(List.of(argv), o.console(Map.of()), false))
        .as("gadget %s%n%s%s", String.join(" ", argv), o.out(), o.err()).isEqualTo(expectedExit);
    return o;
  }

  private HttpResponse<String> me(String page, String token) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(page + "api/me"))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void userWorksWhileTheServerRunsAndAfterItStops() throws Exception {
    Path data = tmp.resolve("data");
    String dir = data.toString();
    Out s = new Out();
    Running server = server(s, dir);
    String page = find(s.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    Path secretFile = data.resolve(LocalAdmin.SECRET_FILE);
    assertThat(Files.readString(data.resolve(LocalAdmin.SERVER_FILE)))
        .contains("\"url\":\"" + page + "\"", "\"pid\":" + ProcessHandle.current().pid());
    if (data.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secretFile)))
          .isEqualTo("rw-------");
    }
    String secret = Files.readString(secretFile).strip();
    assertThat(secret).hasSizeGreaterThanOrEqualTo(43);

    Out erin = user(0, "user", "add", "erin", "--data-dir", dir);
    assertThat(erin.out()).contains("Created the user 'erin' in the running server's store in "
        + data.toAbsolutePath().normalize());
    String erinPage = find(erin.out(), "Page token:  (gdt_\\S+)");
    assertThat(me(page, erinPage).body()).contains("\"username\":\"erin\"");
    assertThat(user(1, "user", "add", "erin", "--data-dir", dir).err())
        .contains("the user 'erin' already exists");
    assertThat(user(1, "user", "token", "nobody", "--data-dir", dir).err())
        .contains("there is no user 'nobody'");
    assertThat(user(2, "user", "add", "bad name", "--data-dir", dir).err())
        .contains("a user name is 1 to 64 letters");
    String newPage = find(user(0, "user", "token", "erin", "--data-dir", dir).out(),
        "Page token:  (gdt_\\S+)");
    assertThat(me(page, newPage).statusCode()).isEqualTo(200);
    assertThat(s.out() + s.err()).doesNotContain(secret, erinPage, newPage);

    server.close();
    assertThat(data.resolve(LocalAdmin.SERVER_FILE)).doesNotExist();
    assertThat(secretFile).doesNotExist();
    Out frank = user(0, "user", "add", "frank", "--data-dir", dir);
    assertThat(frank.out()).contains("in the embedded store in "
        + data.toAbsolutePath().normalize());
    String frankPage = find(frank.out(), "Page token:  (gdt_\\S+)");

    Out again = new Out();
    server(again, dir);
    String page2 = find(again.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    assertThat(me(page2, erinPage).statusCode()).isEqualTo(200);
    assertThat(me(page2, frankPage).body()).contains("\"username\":\"frank\"");
    assertThat(Files.readString(data.resolve(LocalAdmin.SECRET_FILE)).strip())
        .as("a new secret per start").isNotEqualTo(secret);
  }

  @Test
  void theAdminApiRefusesAnyoneWithoutTheSecret() throws Exception {
    Path data = tmp.resolve("data");
    Out s = new Out();
    server(s, data.toString());
    String page = find(s.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    String secret = Files.readString(data.resolve(LocalAdmin.SECRET_FILE)).strip();
    URI users = URI.create(page + "api/admin/users");
    String body = "{\"username\":\"mallory\"}";

    assertThat(post(users, null, body).statusCode()).isEqualTo(401);
    HttpResponse<String> wrong = post(users, secret.substring(1) + "x", body);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).contains("wrong or missing admin secret").doesNotContain(secret);
    assertThat(http.send(HttpRequest.newBuilder(users).header("Authorization", "Bearer "
        + secret).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
    assertThat(post(users, secret, "x".repeat(5000)).statusCode()).isEqualTo(413);
    assertThat(post(users, secret, "[1]").body()).contains("expected {\\\"username\\\"");
    assertThat(post(URI.create(page + "api/admin/other"), secret, body).statusCode())
        .isEqualTo(404);
    HttpResponse<String> ok = post(users, secret, body);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.headers().firstValue("Cache-Control")).contains("no-store");
    assertThat(ok.body()).contains("\"username\":\"mallory\"", "\"pageToken\":\"gdt_");

    assertThat(AdminApi.isThisMachine(InetAddress.getByName("127.0.0.1"))).isTrue();
    assertThat(AdminApi.isThisMachine(InetAddress.getByName("192.0.2.1"))).isFalse();
  }

  @Test
  void aDirectoryHeldByAnotherCommandIsExplained() throws Exception {
    Path data = tmp.resolve("data");
    Files.createDirectories(data);
    Files.writeString(data.resolve(LocalAdmin.SERVER_FILE), "{\"url\":\"http://127.0.0.1:9/\"}");
    assertThat(user(0, "user", "add", "zoe", "--data-dir", data.toString()).out())
        .as("a server.json left by a killed server is ignored and removed")
        .contains("in the embedded store in");
    assertThat(data.resolve(LocalAdmin.SERVER_FILE)).doesNotExist();
    try (Stores.Opened held = Stores.embedded(data)) {
      assertThat(user(1, "user", "add", "erin", "--data-dir", data.toString()).err())
          .contains("is in use by another process, which is not a Gadget server taking "
              + "requests");
    }
    assertThat(user(2, "user", "add", "erin", "--data-dir", data.toString(), "--database", "x")
        .err()).contains("--database names a MongoDB database");
  }

  private HttpResponse<String> post(URI uri, String secret, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (secret != null) {
      b.header("Authorization", "Bearer " + secret);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
