package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the command tests share: the jar's commands run in this JVM on free ports and temp dirs,
 * what they print, and HTTP to what they serve; each command still running is stopped after
 * the test.
 */
abstract class CommandsFixture {
  @TempDir Path tmp;
  final List<Running> running = new ArrayList<>();
  final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stopAll() {
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  /** What a command printed. */
  static final class Out {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    Console console(Map<String, String> env) {
      return new Console(new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8), env);
    }

    String out() {
      return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
      return err.toString(StandardCharsets.UTF_8);
    }
  }

  Running start(Command command, Out out, Map<String, String> env, String... argv)
      throws Exception {
    Running r = command.run(Args.parse(command.options(), List.of(argv)), out.console(env));
    running.add(r);
    return r;
  }

  static String find(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as("/%s/ in:%n%s", regex, text).isTrue();
    return m.group(1);
  }

  HttpResponse<String> get(String url, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> send(String method, String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
