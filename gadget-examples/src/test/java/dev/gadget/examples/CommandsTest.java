package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.TokenKind;
import dev.gadget.core.store.Tokens;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The jar's commands as a person runs them, in this JVM, on free ports and temp dirs: help,
 * mistakes and the command line's checks, and the user commands.
 */
class CommandsTest extends CommandsFixture {
  @Test
  void everyCommandHasHelp() {
    Out o = new Out();
    assertThat(Main.run(List.of("--help"), o.console(Map.of()), false)).isZero();
    assertThat(o.out()).contains("demo", "server", "drone", "user", "acp",
        "Usage: java -jar gadget.jar");
    for (String c : List.of("demo", "server", "drone", "user", "acp")) {
      Out h = new Out();
      assertThat(Main.run(List.of(c, "--help"), h.console(Map.of()), false)).as(c).isZero();
      assertThat(h.out()).as(c).contains("Usage: ", "Options:", "--help");
    }
    Out s = new Out();
    Main.run(List.of("server", "--help"), s.console(Map.of()), false);
    assertThat(s.out()).contains("--port PORT", "--mongo URI", "--data-dir DIR", "--llm SDK",
        "--drone-grace-period SECONDS", "--silence-timeout SECONDS", "--cancel-timeout SECONDS");
  }

  @Test
  void aClusterNeedsTheSharedStoreAndARedisUriAndSaysSo() {
    Out alone = new Out();
    assertThat(Main.run(List.of("server", "--cluster", "redis://127.0.0.1:1"),
        alone.console(Map.of()), false)).isEqualTo(2);
    assertThat(alone.err()).contains("--cluster needs --mongo: the nodes of a cluster share one "
        + "store, and the embedded store belongs to one process");
    Out notRedis = new Out();
    assertThat(Main.run(List.of("server", "--mongo", "mongodb://127.0.0.1:1", "--cluster",
        "http://127.0.0.1:1"), notRedis.console(Map.of()), false)).isEqualTo(2);
    assertThat(notRedis.err()).contains("--cluster takes a Redis URI, such as "
        + "redis://127.0.0.1:6379");
    Out nodeAlone = new Out();
    assertThat(Main.run(List.of("server", "--node-id", "a"), nodeAlone.console(Map.of()),
        false)).isEqualTo(2);
    assertThat(nodeAlone.err()).contains("--node-id names this node in a cluster: it goes with "
        + "--cluster");
    Out peerAlone = new Out();
    assertThat(Main.run(List.of("server", "--cluster-peer", "10.0.0.5:7100"),
        peerAlone.console(Map.of()), false)).isEqualTo(2);
    assertThat(peerAlone.err()).contains("--cluster-peer links this node to the others of a "
        + "cluster: it goes with --cluster");
    for (String bad : List.of("10.0.0.5", "10.0.0.5:0", "10.0.0.5:x")) {
      Out port = new Out();
      assertThat(Main.run(List.of("server", "--mongo", "mongodb://127.0.0.1:1", "--cluster",
          "redis://127.0.0.1:1", "--cluster-peer", bad), port.console(Map.of()), false))
          .isEqualTo(2);
      assertThat(port.err()).contains("--cluster-peer takes HOST:PORT (a port from 1 to 65535)");
    }
    Out wildcard = new Out();
    assertThat(Main.run(List.of("server", "--mongo", "mongodb://127.0.0.1:1", "--cluster",
        "redis://127.0.0.1:1", "--cluster-peer", "0.0.0.0:7100"), wildcard.console(Map.of()),
        false)).isEqualTo(2);
    assertThat(wildcard.err()).contains("--cluster-peer is announced to the other nodes: give "
        + "an address they can reach, not 0.0.0.0");
    Out drone = new Out();
    assertThat(Main.run(List.of("drone", "--token", "gdt_x", "--server",
        "http://127.0.0.1:1/,ftp://x"), drone.console(Map.of()), false)).isEqualTo(2);
    assertThat(drone.err()).contains("--server takes the server's page URL");
  }

  @Test
  void sandboxAndApprovalPoliciesAreCheckedOnTheCommandLine() {
    Out d = new Out();
    assertThat(Main.run(List.of("drone", "--token", "gdt_x", "--sandbox", "open"),
        d.console(Map.of()), false)).isEqualTo(2);
    assertThat(d.err()).contains("no sandbox policy \"open\"; the policies are read-only, "
        + "workspace-write and full-access");
    Out s = new Out();
    assertThat(Main.run(List.of("server", "--approval-policy", "sometimes"),
        s.console(Map.of()), false)).isEqualTo(2);
    assertThat(s.err()).contains("no approval policy \"sometimes\"; the policies are never, "
        + "commands, commands-and-writes and everything");
    Out h = new Out();
    Main.run(List.of("drone", "--help"), h.console(Map.of()), false);
    assertThat(h.out()).contains("--sandbox POLICY", "--sandbox-network");
  }

  @Test
  void theServerTakesItsDroneTimeoutsFromTheCommandLine() throws Exception {
    Out out = new Out();
    Running server = start(new ServerCommand(), out, Map.of(), "--port", "0", "--data-dir",
        tmp.resolve("data").toString(), "--llm", "scripted", "--drone-grace-period", "2.5",
        "--silence-timeout", "40", "--cancel-timeout", "3");
    assertThat(out.out()).contains(
        "Drones:    2.5 s grace period, 40 s silence timeout, 3 s cancel timeout");
    server.close();
    Out bad = new Out();
    assertThat(Main.run(List.of("server", "--cancel-timeout", "0"), bad.console(Map.of()),
        false)).isEqualTo(2);
    assertThat(bad.err()).contains(
        "--cancel-timeout must be a number of seconds above 0 and at most 86400 (a day), not '0'");
  }

  @Test
  void mistakesExitWithTwoAndSayWhy() {
    Out none = new Out();
    assertThat(Main.run(List.of(), none.console(Map.of()), false)).isEqualTo(2);
    Out unknown = new Out();
    assertThat(Main.run(List.of("serve"), unknown.console(Map.of()), false)).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown command 'serve'");
    Out option = new Out();
    assertThat(Main.run(List.of("server", "--prot", "1"), option.console(Map.of()), false))
        .isEqualTo(2);
    assertThat(option.err()).contains("gadget server: unknown option --prot",
        "java -jar gadget.jar server --help");
    Out drone = new Out();
    assertThat(Main.run(List.of("drone"), drone.console(Map.of()), false)).isEqualTo(2);
    assertThat(drone.err()).contains("GADGET_DRONE_TOKEN");
    Out user = new Out();
    assertThat(Main.run(List.of("user", "add", "bad name", "--data-dir",
        tmp.resolve("d").toString()), user.console(Map.of()), false)).isEqualTo(2);
  }

  @Test
  void userAddAndTokenWorkOnTheDataDirectory() {
    String dir = tmp.resolve("data").toString();
    Out add = new Out();
    assertThat(Main.run(List.of("user", "add", "carol", "--data-dir", dir),
        add.console(Map.of()), false)).isZero();
    String page = find(add.out(), "Page token:  (gdt_\\S+)");
    String drone = find(add.out(), "Drone token: (gdt_\\S+)");
    Out again = new Out();
    assertThat(Main.run(List.of("user", "add", "carol", "--data-dir", dir),
        again.console(Map.of()), false)).isEqualTo(1);
    assertThat(again.err()).contains("the user 'carol' already exists");
    Out token = new Out();
    assertThat(Main.run(List.of("user", "token", "carol", "--data-dir", dir),
        token.console(Map.of()), false)).isZero();
    String newPage = find(token.out(), "Page token:  (gdt_\\S+)");
    assertThat(newPage).isNotEqualTo(page);
    Out missing = new Out();
    assertThat(Main.run(List.of("user", "token", "dave", "--data-dir", dir),
        missing.console(Map.of()), false)).isEqualTo(1);

    try (Stores.Opened store = Stores.embedded(Path.of(dir))) {
      Tokens tokens = new Tokens(store.store());
      assertThat(tokens.authenticate(page, TokenKind.USER)).isPresent();
      assertThat(tokens.authenticate(newPage, TokenKind.USER)).isPresent();
      assertThat(tokens.authenticate(drone, TokenKind.DRONE)).isPresent();
    }
  }

  @Test
  void aServerAddressThatIsNoUrlExitsWithTwoAndSaysWhatIsExpected() {
    for (String bad : List.of("http://[oops", "ftp://127.0.0.1:7700/", "127.0.0.1:notaport",
        "http://127.0.0.1:7700/?x=1")) {
      Out o = new Out();
      assertThat(Main.run(List.of("drone", "--server", bad, "--workspace",
          tmp.resolve("ws").toString()), o.console(Map.of("GADGET_DRONE_TOKEN", "gdt_x")), false))
          .as(bad).isEqualTo(2);
      assertThat(o.err()).as(bad).contains("gadget drone: --server takes the server's page URL, "
          + "such as http://127.0.0.1:7700/, or host:port (meaning http://host:port/); not '"
          + bad + "'").doesNotContain("Exception");
    }
    assertThat(tmp.resolve("ws")).as("nothing is created").doesNotExist();
    Out help = new Out();
    Main.run(List.of("drone", "--help"), help.console(Map.of()), false);
    assertThat(help.out()).contains("--server URL", "or host:port meaning http://host:port/");
  }

  @Test
  void userCommandsCheckTheNameBeforeCreatingAnything() {
    Path dir = tmp.resolve("data");
    Out add = new Out();
    assertThat(Main.run(List.of("user", "add", "bad name!", "--data-dir", dir.toString()),
        add.console(Map.of()), false)).isEqualTo(2);
    assertThat(add.err()).contains("gadget user: 'bad name!' is not a user name: a user name is "
        + "1 to 64 letters, digits");
    assertThat(dir).as("no data directory is left behind").doesNotExist();
    Out token = new Out();
    assertThat(Main.run(List.of("user", "token", "alice", "--data-dir", dir.toString()),
        token.console(Map.of()), false)).isEqualTo(1);
    assertThat(token.err()).contains("there is no user 'alice': there is no store in " + dir);
    assertThat(dir).doesNotExist();
  }
}
