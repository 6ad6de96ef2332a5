package dev.gadget.examples;

import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code gadget server} and {@code gadget drone} as a person runs them: the first start and the
 * next, a drone's token, a drone waiting for its server.
 */
class ServerAndDroneCommandsTest extends CommandsFixture {
  @Test
  void theServerMakesAnAdminAtFirstStartOnlyAndKeepsItsData() throws Exception {
    String dir = tmp.resolve("data").toString();
    Out first = new Out();
    Running server = start(new ServerCommand(), first, Map.of(), "--port", "0", "--data-dir", dir,
        "--llm", "scripted");
    String page = find(first.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    String adminToken = find(first.out(), "Page token:  (gdt_\\S+)");
    assertThat(first.out()).contains("created the user 'admin'", "#token=" + adminToken,
        "Drone token: gdt_", "the embedded store in", "SCRIPTED replies");
    assertThat(get(page + "api/health", null).statusCode()).isEqualTo(200);

    // While it runs, 'user add' goes through its store.
    Out add = new Out();
    assertThat(Main.run(List.of("user", "add", "erin", "--data-dir", dir), add.console(Map.of()),
        false)).isZero();
    assertThat(add.out()).contains("the running server's store");
    String erin = find(add.out(), "Page token:  (gdt_\\S+)");
    assertThat(get(page + "api/me", erin).body()).contains("\"username\":\"erin\"");
    server.close();

    Out second = new Out();
    start(new ServerCommand(), second, Map.of(), "--port", "0", "--data-dir", dir, "--llm",
        "scripted");
    assertThat(second.out()).doesNotContain("created the user", "gdt_")
        .contains("Sign in with your page token");
    String page2 = find(second.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    assertThat(get(page2 + "api/me", adminToken).body()).contains("\"username\":\"admin\"");
  }

  @Test
  void aDroneConnectsWithItsTokenAndIsRefusedWithAPageToken() throws Exception {
    String dir = tmp.resolve("data").toString();
    Out s = new Out();
    start(new ServerCommand(), s, Map.of(), "--port", "0", "--data-dir", dir, "--llm", "scripted");
    String page = find(s.out(), "Page:\\s+(http://127\\.0\\.0\\.1:\\d+/)");
    String droneToken = find(s.out(), "Drone token: (gdt_\\S+)");
    String pageToken = find(s.out(), "Page token:  (gdt_\\S+)");

    Out d = new Out();
    Running drone = start(new DroneCommand(), d, Map.of("GADGET_DRONE_TOKEN", droneToken),
        "--server", page, "--workspace", tmp.resolve("ws").toString(), "--hostname", "box");
    await("the drone to connect", () -> d.out().contains("[drone] connected to " + page));
    // the server's acceptance of the registration comes after the connection
    await("the drone to be registered", () -> d.out().contains("available: waiting for work"));
    assertThat(d.out()).contains("workspace " + tmp.resolve("ws"))
        .doesNotContain(droneToken);
    assertThat(Files.exists(tmp.resolve("ws/.gadget/workspace.json"))).isTrue();
    assertThat(drone.exitCode()).isNotDone();

    Out bad = new Out();
    Running refused = start(new DroneCommand(), bad, Map.of("GADGET_DRONE_TOKEN", pageToken),
        "--server", page, "--workspace", tmp.resolve("ws2").toString());
    assertThat(refused.exitCode().get(20, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(bad.out()).contains("refused this drone: this is a user token");
  }

  @Test
  void aDroneWaitsForAServerThatIsNotThereYetSayingSoAndTakesHostColonPort() throws Exception {
    String dir = tmp.resolve("data").toString();
    Out first = new Out();
    Running server = start(new ServerCommand(), first, Map.of(), "--port", "0", "--data-dir",
        dir, "--llm", "scripted");
    String droneToken = find(first.out(), "Drone token: (gdt_\\S+)");
    server.close();
    int port = URI.create(ProvidersTest.nothingListening()).getPort();

    Out d = new Out();
    Running drone = start(new DroneCommand(), d, Map.of("GADGET_DRONE_TOKEN", droneToken),
        "--server", "127.0.0.1:" + port, "--workspace", tmp.resolve("ws").toString());
    await("the drone to say it waits", () -> d.out().contains(
        "[drone] cannot reach the server at http://127.0.0.1:" + port + "/ (connection refused);"
            + " trying again in 1 s. Ctrl-C stops."));
    assertThat(drone.exitCode()).isNotDone();
    assertThat(d.err()).isEmpty();

    Out second = new Out();
    start(new ServerCommand(), second, Map.of(), "--port", String.valueOf(port),
        "--socket-port", "0", "--data-dir", dir, "--llm", "scripted");
    await("the drone to connect", () -> d.out().contains(
        "[drone] connected to http://127.0.0.1:" + port + "/"));
    assertThat(drone.exitCode()).isNotDone();
  }
}
