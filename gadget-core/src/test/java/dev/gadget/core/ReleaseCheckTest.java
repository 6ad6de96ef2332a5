package dev.gadget.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/CheckRelease.java, which scripts/release-check runs on a real release build, against a
 * staged repository made here from the project's own POMs (with stand-in jars and signatures):
 * the POMs pass, and each thing Maven Central refuses is caught.
 */
class ReleaseCheckTest {
  private static final Path ROOT = Paths.get("..").toAbsolutePath().normalize();
  private static final String VERSION = "0.1.0-SNAPSHOT";
  private static final String EXPECT =
      "gadget-parent,gadget-bom,gadget-core,gadget-transport-ws,gadget-store-mongo";

  @TempDir static Path classes;
  static URLClassLoader checker;
  @TempDir Path staging;

  /** Output and exit code of one run of the checker. */
  record Run(int exit, String output) {}

  @BeforeAll
  static void compileTheChecker() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);
    int exit = ToolProvider.findFirst("javac").orElseThrow().run(out, out, "-d",
        classes.toString(), ROOT.resolve("scripts/CheckRelease.java").toString());
    assertThat(exit).as(log.toString(StandardCharsets.UTF_8)).isZero();
    checker = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        ClassLoader.getPlatformClassLoader());
  }

  @AfterAll
  static void close() throws IOException {
    checker.close();
  }

  @BeforeEach
  void stageTheProjectsPoms() throws Exception {
    stage("gadget-parent", "pom.xml", "pom");
    stage("gadget-bom", "gadget-bom/pom.xml", "pom");
    stage("gadget-core", "gadget-core/pom.xml", "jar");
    stage("gadget-transport-ws", "gadget-transport-ws/pom.xml", "jar");
    stage("gadget-store-mongo", "gadget-store-mongo/pom.xml", "jar");
  }

  /** Runs the checker in this JVM (its main only adds System.exit). */
  private Run check() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Method run = checker.loadClass("CheckRelease").getMethod("run", String[].class,
        PrintStream.class);
    int exit = (int) run.invoke(null, new String[] {staging.toString(), "--expect", EXPECT},
        new PrintStream(log, true, StandardCharsets.UTF_8));
    return new Run(exit, log.toString(StandardCharsets.UTF_8));
  }

  private Path dir(String artifactId) {
    return staging.resolve("dev/gadget/" + artifactId + "/" + VERSION);
  }

  /** Stages a component as deploy writes it: POM, jars, a signature and checksums for each. */
  private void stage(String artifactId, String pom, String packaging) throws Exception {
    Path dir = Files.createDirectories(dir(artifactId));
    String base = artifactId + "-" + VERSION;
    List<Path> files = new ArrayList<>();
    files.add(Files.copy(ROOT.resolve(pom), dir.resolve(base + ".pom")));
    if (packaging.equals("jar")) {
      files.add(jar(dir.resolve(base + ".jar"), "dev/gadget/X.class"));
      files.add(jar(dir.resolve(base + "-sources.jar"), "dev/gadget/X.java"));
      files.add(jar(dir.resolve(base + "-javadoc.jar"), "index.html"));
    }
    for (Path f : files) {
      Files.writeString(Path.of(f + ".asc"), "-----BEGIN PGP SIGNATURE-----\n");
      sums(f);
    }
  }

  private static Path jar(Path file, String entry) throws IOException {
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
      zip.putNextEntry(new ZipEntry(entry));
      zip.write(entry.getBytes(StandardCharsets.UTF_8));
      zip.closeEntry();
    }
    return file;
  }

  private static void sums(Path file) throws Exception {
    byte[] content = Files.readAllBytes(file);
    for (String[] alg : new String[][] {{"MD5", ".md5"}, {"SHA-1", ".sha1"}}) {
      Files.writeString(Path.of(file + alg[1]),
          HexFormat.of().formatHex(MessageDigest.getInstance(alg[0]).digest(content)));
    }
  }

  /** Rewrites a staged POM and its checksums. */
  private void editPom(String artifactId, String from, String to) throws Exception {
    Path pom = dir(artifactId).resolve(artifactId + "-" + VERSION + ".pom");
    String text = Files.readString(pom);
    assertThat(text).contains(from);
    Files.writeString(pom, text.replace(from, to));
    sums(pom);
  }

  @Test
  void theProjectsPomsHaveEverythingMavenCentralRequires() throws Exception {
    Run run = check();

    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output()).contains("OK: 5 components, 14 files, ready for Maven Central: "
        + "gadget-bom, gadget-core, gadget-parent, gadget-store-mongo, gadget-transport-ws");
  }

  @Test
  void urlsInheritedWithTheArtifactIdAppendedAreCaught() throws Exception {
    editPom("gadget-parent", "child.project.url.inherit.append.path=\"false\"", "");
    editPom("gadget-parent", "child.scm.connection.inherit.append.path=\"false\"", "");

    Run run = check();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains("PROBLEM: gadget-core: <url> is inherited as "
            + "https://github.com/gadget-dev/gadget/gadget-core, the parent's with the artifactId "
            + "appended, which points nowhere; set child.project.url.inherit.append.path=\"false\" "
            + "on the parent's <project>, or give the module its own")
        .contains("PROBLEM: gadget-store-mongo: <scm/connection> is inherited as "
            + "scm:git:https://github.com/gadget-dev/gadget.git/gadget-store-mongo")
        .doesNotContain("gadget-bom: <url>")
        .doesNotContain("<scm/url> is inherited");
  }

  @Test
  void missingSignaturesChecksumsSourcesAndJavadocAreCaught() throws Exception {
    String core = "gadget-core-" + VERSION;
    Files.delete(dir("gadget-core").resolve(core + "-javadoc.jar"));
    Files.delete(dir("gadget-core").resolve(core + "-javadoc.jar.asc"));
    Files.delete(dir("gadget-core").resolve(core + "-javadoc.jar.md5"));
    Files.delete(dir("gadget-core").resolve(core + "-javadoc.jar.sha1"));
    Files.delete(dir("gadget-transport-ws").resolve("gadget-transport-ws-" + VERSION + ".jar.asc"));
    Files.writeString(dir("gadget-store-mongo").resolve("gadget-store-mongo-" + VERSION
        + ".jar.sha1"), "0000000000000000000000000000000000000000");
    jar(dir("gadget-store-mongo").resolve("gadget-store-mongo-" + VERSION + "-sources.jar"),
        "README.txt");
    sums(dir("gadget-store-mongo").resolve("gadget-store-mongo-" + VERSION + "-sources.jar"));

    Run run = check();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output()).contains(
        "PROBLEM: gadget-core: " + core + "-javadoc.jar is missing",
        "PROBLEM: gadget-transport-ws: gadget-transport-ws-" + VERSION + ".jar is not signed",
        "PROBLEM: gadget-store-mongo: gadget-store-mongo-" + VERSION + ".jar.sha1 does not "
            + "match the file",
        "PROBLEM: gadget-store-mongo: gadget-store-mongo-" + VERSION + "-sources.jar holds no "
            + ".java file");
  }

  @Test
  void publishingTheExamplesIsCaught() throws Exception {
    stage("gadget-examples", "gadget-examples/pom.xml", "jar");

    Run run = check();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output()).contains("PROBLEM: gadget-examples was published but is not a "
        + "library");
  }

  @Test
  void aBomThatMissesAModuleIsCaught() throws Exception {
    editPom("gadget-bom", "      <dependency>\n        <groupId>dev.gadget</groupId>\n"
        + "        <artifactId>gadget-store-mongo</artifactId>\n"
        + "        <version>${project.version}</version>\n      </dependency>\n", "");

    Run run = check();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output()).contains("PROBLEM: gadget-bom does not manage gadget-store-mongo");
  }

  @Test
  void aBomThatInheritsTheBuildsVersionsIsCaught() throws Exception {
    editPom("gadget-bom", "  <groupId>dev.gadget</groupId>\n  <artifactId>gadget-bom</artifactId>",
        "  <parent>\n    <groupId>dev.gadget</groupId>\n    <artifactId>gadget-parent</artifactId>"
            + "\n    <version>" + VERSION + "</version>\n  </parent>\n"
            + "  <groupId>dev.gadget</groupId>\n  <artifactId>gadget-bom</artifactId>");

    Run run = check();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output()).containsPattern("PROBLEM: gadget-bom inherits from gadget-parent "
        + "that it manages \\d+ dependencies that are not dev.gadget's, which would pin its "
        + "users' versions: com.fasterxml.jackson.core:jackson-databind, ");
  }

  @Test
  void aModuleWithoutANameOrAProjectWithoutALicenseIsCaught() throws Exception {
    editPom("gadget-core", "<name>Gadget Core</name>", "");
    editPom("gadget-parent", "<licenses>", "<licensesGone>");
    editPom("gadget-parent", "</licenses>", "</licensesGone>");

    Run run = check();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output()).contains(
        "PROBLEM: gadget-core: no <name> (Maven does not inherit it)",
        "PROBLEM: gadget-parent: no <license> with a <name> and a <url>",
        "PROBLEM: gadget-transport-ws: no <license> with a <name> and a <url>")
        .doesNotContain("gadget-bom: no <license>");
  }
}
