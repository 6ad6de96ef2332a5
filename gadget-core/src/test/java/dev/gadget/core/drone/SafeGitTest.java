package dev.gadget.core.drone;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.agent.TestRepo;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drone's git runs nothing a repository names: every kind of executable git configuration
 * ({@link GitPlants}) is planted in a real checkout, plain git is shown to run each, then every
 * git path of the drone (fetch and fast-forward, checkpoints, diff, undo, commit, push to a
 * local bare remote) runs with none of them firing, and the user's own configuration (a
 * credential helper in their global config) still serves a push.
 */
class SafeGitTest {
  @TempDir Path tmp;
  Path origin;
  Path dir;
  Path markers;
  GitChanges changes = new GitChanges(Duration.ofSeconds(60));

  @BeforeEach
  void project() throws Exception {
    Path seed = Files.createDirectories(tmp.resolve("seed"));
    git(seed, "init", "-q", "-b", "main");
    for (String f : List.of("a.txt", "b.md", "c.inc", "d.attr")) {
      Files.writeString(seed.resolve(f), "one\ntwo\n");
    }
    git(seed, "add", "-A");
    git(seed, "-c", "user.name=Seed", "-c", "user.email=seed@example.com", "commit", "-q",
        "-m", "init");
    origin = tmp.resolve("origin.git");
    git(tmp, "clone", "-q", "--bare", seed.toString(), origin.toString());
    dir = tmp.resolve("work");
    git(tmp, "clone", "-q", origin.toString(), dir.toString());
    markers = Files.createDirectories(tmp.resolve("markers"));
  }

  private static String git(Path dir, String... args) throws Exception {
    return TestRepo.gitIn(dir, args);
  }

  /** A colleague's commit on origin's main, touching every attributed file. */
  private void colleaguePushes() throws Exception {
    Path other = tmp.resolve("colleague");
    if (!Files.exists(other)) {
      git(tmp, "clone", "-q", origin.toString(), other.toString());
    }
    for (String f : List.of("a.txt", "b.md", "c.inc", "d.attr")) {
      Files.writeString(other.resolve(f), "zero\none\ntwo\n");
    }
    git(other, "-c", "user.name=C", "-c", "user.email=c@example.com", "commit", "-qam", "more");
    git(other, "push", "-q", "origin", "main");
  }

  @Test
  void plainGitRunsThePlantedPrograms() throws Exception {
    GitPlants.run(dir, GitPlants.script(markers));
    colleaguePushes();
    Files.writeString(dir.resolve("a.txt"), "changed\n");
    Files.writeString(dir.resolve("c.inc"), "changed\n");
    Files.writeString(dir.resolve("d.attr"), "changed\n");
    // what a person (or an unguarded drone) runs
    gitMayFail(dir, "status", "--porcelain"); // the planted process filter makes it fail
    assertThat(GitPlants.fired(markers)).contains("process", "fsmonitor");
    git(dir, "config", "--unset", "filter.gp.process"); // so that the rest can run
    gitMayFail(dir, "diff", "HEAD");
    gitMayFail(dir, "diff", "--no-ext-diff", "HEAD");
    gitMayFail(dir, "add", "-A");
    gitMayFail(dir, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-qm", "x");
    gitMayFail(dir, "-c", "commit.gpgSign=false", "-c", "user.name=U", "-c", "user.email=u@example.com",
        "commit", "-qm", "x");
    gitMayFail(dir, "fetch", "-q", "origin");
    gitMayFail(dir, "push", "-q", "origin", "HEAD:refs/heads/plain");
    assertThat(GitPlants.fired(markers)).contains("hook-reference-transaction",
        "hook-pre-commit", "hook-post-commit", "hook-pre-push", "fsmonitor", "clean",
        "included", "textconv", "extdiff", "gpg", "uploadpack", "receivepack");
  }

  private static void gitMayFail(Path dir, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    p.waitFor();
  }

  @Test
  void theDronesGitRunsNoneOfThemOnAnyPath() throws Exception {
    GitPlants.run(dir, GitPlants.script(markers));
    String plantedConfig = Files.readString(dir.resolve(".git/config"));
    colleaguePushes();

    // the next turn's git: fetch and fast-forward (checkout of every attributed file)
    assertThat(new Git(Duration.ofSeconds(60)).checkout(origin.toString(), dir))
        .isEqualTo(Git.Checkout.SYNCED);
    assertThat(Files.readString(dir.resolve("a.txt"))).isEqualTo("zero\none\ntwo\n");

    // a turn, its checkpoints and diff; another turn, undone
    changes.checkpoint(dir, "t1");
    for (String f : List.of("a.txt", "b.md", "c.inc", "d.attr", "sub/file.txt")) {
      Files.writeString(dir.resolve(f), "turn one\n");
    }
    Files.writeString(dir.resolve("new.txt"), "new\n");
    assertThat(changes.finish(dir, "t1").files()).isNotEmpty();
    assertThat(changes.changes(dir, "t1").patch()).contains("+turn one");
    changes.checkpoint(dir, "t2");
    Files.writeString(dir.resolve("b.md"), "turn two\n");
    changes.finish(dir, "t2");
    changes.undo(dir, "t2");
    assertThat(Files.readString(dir.resolve("b.md"))).isEqualTo("turn one\n");

    // commit and push
    GitChanges.Commit commit = changes.commit(dir, List.of("t1"), "gadget/plants", "Turn one",
        "Ada", "ada@example.com");
    changes.push(dir, "origin", "gadget/plants");
    assertThat(git(origin, "rev-parse", "refs/heads/gadget/plants").strip())
        .isEqualTo(commit.commit());

    assertThat(GitPlants.fired(markers)).as("planted programs that ran").isEmpty();
    // the user's configuration is theirs: nothing rewritten
    assertThat(Files.readString(dir.resolve(".git/config"))).isEqualTo(plantedConfig);
  }

  @Test
  void aPushUsesTheUsersCredentialHelperNeverTheRepositorys() throws Exception {
    GitPlants.run(dir, GitPlants.script(markers));
    List<String> auth = new CopyOnWriteArrayList<>();
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/", exchange -> {
      String given = exchange.getRequestHeaders().getFirst("Authorization");
      if (given == null) {
        exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"gadget\"");
        exchange.sendResponseHeaders(401, -1);
      } else {
        auth.add(given); // and refused, so git tells every helper to forget them
        exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"gadget\"");
        exchange.sendResponseHeaders(401, -1);
      }
      exchange.close();
    });
    http.start();
    try {
      Path global = tmp.resolve("user.gitconfig");
      Files.writeString(global, "[credential]\n\thelper = \"!f() { echo username=ada;"
          + " echo password=s3cret; }; f\"\n");
      String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/repo.git";
      git(dir, "remote", "add", "web", url);
      GitRunner.Result r = new GitRunner(Duration.ofSeconds(30)).run(dir,
          Map.of("GIT_CONFIG_GLOBAL", global.toString()), "push", "web", "main");
      assertThat(r.exit()).isNotZero(); // the server refuses the credentials it read
      assertThat(auth).contains("Basic " + Base64.getEncoder().encodeToString(
          "ada:s3cret".getBytes(StandardCharsets.UTF_8)));
      assertThat(GitPlants.fired(markers)).isEmpty();
    } finally {
      http.stop(0);
    }
  }

  @Test
  void aSubmoduleDirectoryTheAgentFilledRunsNothingAtACheckpoint() throws Exception {
    // the project tracks a submodule at sub/, not checked out: the directory is the agent's
    String commit = git(dir, "rev-parse", "HEAD").strip();
    git(dir, "update-index", "--add", "--cacheinfo", "160000," + commit + ",sub");
    git(dir, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-qm", "sub");
    String script = "cd sub && git init -q && echo d > a && git add a"
        + " && git config filter.x.clean 'touch " + markers + "/submodule-clean; cat'"
        + " && echo '* filter=x' > .git/info/attributes && echo " + commit + " > .git/HEAD"
        + " && touch -d '2 seconds' a";
    Files.createDirectories(dir.resolve("sub"));
    GitPlants.run(dir, script);
    Path control = tmp.resolve("control");
    GitPlants.run(tmp, "cp -a " + dir + " " + control);
    gitMayFail(control, "add", "-A"); // plain git runs the submodule's filter
    assertThat(GitPlants.fired(markers)).containsExactly("submodule-clean");
    Files.delete(markers.resolve("submodule-clean"));

    changes.checkpoint(dir, "t1");
    Files.writeString(dir.resolve("a.txt"), "changed\n");
    assertThat(changes.finish(dir, "t1").files()).extracting(f -> f.path())
        .containsExactly("a.txt");
    assertThat(GitPlants.fired(markers)).isEmpty();
  }

  @Test
  void everyRemoteIsFetchedWithGitsOwnUploadPackAndNoProxy() throws Exception {
    // a repository config that includes a file of the working tree naming more remotes
    git(dir, "config", "include.path", "../shared.gitconfig");
    Files.writeString(dir.resolve("shared.gitconfig"), "[remote \"extra\"]\n"
        + "\turl = " + origin + "\n\tfetch = +refs/heads/*:refs/remotes/extra/*\n"
        + "\tuploadpack = touch " + markers + "/uploadpack; git-upload-pack\n"
        + "[core]\n\tgitProxy = " + markers + "/proxy.sh\n"
        + "\talternateRefsCommand = touch " + markers + "/alternate; true\n");
    colleaguePushes();
    assertThat(new Git(Duration.ofSeconds(60)).checkout(origin.toString(), dir))
        .isEqualTo(Git.Checkout.SYNCED);
    assertThat(git(dir, "rev-parse", "refs/remotes/extra/main").strip())
        .isEqualTo(git(origin, "rev-parse", "main").strip());
    assertThat(GitPlants.fired(markers)).isEmpty();
  }
}
