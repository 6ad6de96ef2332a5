import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks a staged Maven repository, as {@code ./mvnw -Prelease deploy
 * -DaltDeploymentRepository=staging::file:DIR} writes it, against what Maven Central requires of
 * each component: a POM with a name, a description, a project URL, a license, a developer and SCM
 * URLs (its own or inherited, and no URL inherited with the artifactId appended, which points
 * nowhere); the jar, a sources jar and a javadoc jar; an {@code .asc} signature, an {@code .md5}
 * and a {@code .sha1} for every file. Also: the published set is exactly {@code --expect}, and a
 * BOM manages every published jar, and nothing else.
 *
 * <pre>
 * java scripts/CheckRelease.java DIR --expect gadget-parent,gadget-core [--gpg]
 * </pre>
 *
 * {@code --gpg} also verifies each signature with {@code gpg --verify} (with the caller's
 * {@code GNUPGHOME}). Prints each problem and exits 1, or prints a summary and exits 0.
 */
public class CheckRelease {
  private static final List<String> SIDE_FILES = List.of(".asc", ".md5", ".sha1", ".sha256",
      ".sha512");

  private final Path root;
  private final boolean gpg;
  private final List<String> problems = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final Map<String, Pom> byCoordinates = new LinkedHashMap<>();
  private int files;

  /** One published POM and the directory it was found in. */
  record Pom(Path file, Element project, String groupId, String artifactId, String version,
      String packaging, String parentKey) {
    String key() {
      return groupId + ":" + artifactId + ":" + version;
    }

    /** The text of the child element at {@code path} ("scm/url"), or null if absent or blank. */
    String own(String path) {
      Element e = project;
      for (String part : path.split("/")) {
        e = child(e, part);
        if (e == null) {
          return null;
        }
      }
      String text = e.getTextContent().strip();
      return text.isEmpty() ? null : text;
    }
  }

  CheckRelease(Path root, boolean gpg) {
    this.root = root;
    this.gpg = gpg;
  }

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  /** Checks, printing to {@code out}; returns the exit code: 0 ready, 1 problems, 2 misuse. */
  public static int run(String[] args, PrintStream out) throws Exception {
    if (args.length == 0) {
      out.println("usage: java scripts/CheckRelease.java STAGING_DIR --expect a,b [--gpg]");
      return 2;
    }
    Path root = Path.of(args[0]);
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    int at = rest.indexOf("--expect");
    Set<String> expect = at >= 0 && at + 1 < rest.size()
        ? new TreeSet<>(Arrays.asList(rest.get(at + 1).split(","))) : Set.of();
    CheckRelease check = new CheckRelease(root, rest.contains("--gpg"));
    check.run(expect);
    check.notes.forEach(n -> out.println("note: " + n));
    if (!check.problems.isEmpty()) {
      check.problems.forEach(p -> out.println("PROBLEM: " + p));
      out.println(check.problems.size() + " problem(s): not ready for Maven Central");
      return 1;
    }
    out.println("OK: " + check.byCoordinates.size() + " components, " + check.files
        + " files, ready for Maven Central: " + check.byCoordinates.values().stream()
        .map(Pom::artifactId).collect(Collectors.joining(", ")));
    return 0;
  }

  void run(Set<String> expect) throws Exception {
    if (!Files.isDirectory(root)) {
      problems.add(root + " is not a directory");
      return;
    }
    List<Path> poms;
    try (Stream<Path> walk = Files.walk(root)) {
      poms = walk.filter(p -> p.toString().endsWith(".pom")).sorted().toList();
    }
    for (Path file : poms) {
      Pom pom = read(file);
      if (byCoordinates.put(pom.key(), pom) != null) {
        problems.add(pom.key() + ": more than one build in " + root.relativize(file.getParent())
            + "; stage into an empty directory");
      }
    }
    Set<String> published = byCoordinates.values().stream().map(Pom::artifactId)
        .collect(Collectors.toCollection(TreeSet::new));
    for (String a : expect) {
      if (!published.contains(a)) {
        problems.add(a + " was not published");
      }
    }
    for (String a : published) {
      if (!expect.isEmpty() && !expect.contains(a)) {
        problems.add(a + " was published but is not a library (expected only " + expect + ")");
      }
    }
    for (Pom pom : byCoordinates.values()) {
      checkFiles(pom);
      checkMetadata(pom);
      if (pom.artifactId().endsWith("-bom")) {
        checkBom(pom);
      }
      if (pom.version().endsWith("-SNAPSHOT")) {
        notes.add(pom.key() + " is a SNAPSHOT: Maven Central takes release versions only");
      }
    }
  }

  private Pom read(Path file) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Element project = f.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
    Element parent = child(project, "parent");
    String groupId = text(project, "groupId", parent);
    String version = text(project, "version", parent);
    String packaging = child(project, "packaging") != null
        ? child(project, "packaging").getTextContent().strip() : "jar";
    String parentKey = parent == null ? null : text(parent, "groupId", null) + ":"
        + text(parent, "artifactId", null) + ":" + text(parent, "version", null);
    return new Pom(file, project, groupId, text(project, "artifactId", null), version, packaging,
        parentKey);
  }

  /** The files of a component: each with its signature and checksums; jars with sources and docs. */
  private void checkFiles(Pom pom) throws Exception {
    Path dir = pom.file().getParent();
    String base = pom.file().getFileName().toString().replaceFirst("\\.pom$", "");
    List<String> required = new ArrayList<>(List.of(base + ".pom"));
    if (pom.packaging().equals("jar")) {
      required.addAll(List.of(base + ".jar", base + "-sources.jar", base + "-javadoc.jar"));
    }
    for (String name : required) {
      if (!Files.isRegularFile(dir.resolve(name))) {
        problems.add(pom.artifactId() + ": " + name + " is missing");
      }
    }
    List<Path> primaries;
    try (Stream<Path> list = Files.list(dir)) {
      primaries = list.filter(p -> SIDE_FILES.stream().noneMatch(p.toString()::endsWith))
          .filter(p -> !p.getFileName().toString().startsWith("maven-metadata"))
          .sorted().toList();
    }
    for (Path p : primaries) {
      files++;
      String name = p.getFileName().toString();
      if (!Files.isRegularFile(dir.resolve(name + ".asc"))) {
        problems.add(pom.artifactId() + ": " + name + " is not signed (no " + name + ".asc)");
      } else if (gpg) {
        verifySignature(pom, p);
      }
      checksum(pom, p, ".md5", "MD5");
      checksum(pom, p, ".sha1", "SHA-1");
      if (name.endsWith("-javadoc.jar") && !hasEntry(p, "index.html")) {
        problems.add(pom.artifactId() + ": " + name + " has no index.html");
      }
      if (name.endsWith("-sources.jar") && !hasEntry(p, ".java")) {
        problems.add(pom.artifactId() + ": " + name + " holds no .java file");
      }
    }
  }

  private void checksum(Pom pom, Path file, String suffix, String algorithm)
      throws IOException, NoSuchAlgorithmException {
    Path sum = Path.of(file + suffix);
    String name = file.getFileName() + suffix;
    if (!Files.isRegularFile(sum)) {
      problems.add(pom.artifactId() + ": " + name + " is missing");
      return;
    }
    String expected = HexFormat.of().formatHex(
        MessageDigest.getInstance(algorithm).digest(Files.readAllBytes(file)));
    String actual = Files.readString(sum).strip().split("\\s+")[0];
    if (!actual.equalsIgnoreCase(expected)) {
      problems.add(pom.artifactId() + ": " + name + " does not match the file");
    }
  }

  private void verifySignature(Pom pom, Path file) throws Exception {
    Process p = new ProcessBuilder("gpg", "--batch", "--verify", file + ".asc", file.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      problems.add(pom.artifactId() + ": the signature of " + file.getFileName()
          + " does not verify: " + out.strip().replace('\n', ' '));
    }
  }

  private static boolean hasEntry(Path jar, String suffix) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      return zip.stream().anyMatch(e -> e.getName().endsWith(suffix));
    }
  }

  /** What Central reads from the POM, taking what Maven would inherit from published parents. */
  private void checkMetadata(Pom pom) {
    String a = pom.artifactId();
    if (pom.own("name") == null) {
      problems.add(a + ": no <name> (Maven does not inherit it)");
    }
    if (inherited(pom, "description", false) == null) {
      problems.add(a + ": no <description>");
    }
    for (String path : List.of("url", "scm/url", "scm/connection")) {
      String value = inherited(pom, path, true);
      String declared = inherited(pom, path, false);
      if (value == null) {
        problems.add(a + ": no <" + path + ">");
      } else if (!value.equals(declared)) {
        problems.add(a + ": <" + path + "> is inherited as " + value + ", the parent's with the "
            + "artifactId appended, which points nowhere; set " + attribute(path)
            + "=\"false\" on the parent's " + (path.startsWith("scm/") ? "<scm>" : "<project>")
            + ", or give the module its own");
      } else if (path.equals("url") && !value.startsWith("https://")) {
        problems.add(a + ": <url> " + value + " is not an https:// address");
      }
    }
    Element licenses = section(pom, "licenses");
    if (licenses == null || children(licenses, "license").stream()
        .noneMatch(l -> has(l, "name") && has(l, "url"))) {
      problems.add(a + ": no <license> with a <name> and a <url>");
    }
    Element developers = section(pom, "developers");
    if (developers == null || children(developers, "developer").stream()
        .noneMatch(d -> has(d, "name") || has(d, "id"))) {
      problems.add(a + ": no <developer> with a <name> or an <id>");
    }
  }

  /**
   * The value at {@code path}: the POM's own, else its parent's; with {@code append}, Maven's
   * inheritance appends "/artifactId" unless the parent says not to.
   */
  private String inherited(Pom pom, String path, boolean append) {
    String own = pom.own(path);
    if (own != null || pom.parentKey() == null) {
      return own;
    }
    Pom parent = byCoordinates.get(pom.parentKey());
    if (parent == null) {
      problems.add(pom.artifactId() + ": its parent " + pom.parentKey() + " is not published "
          + "with it");
      return null;
    }
    String value = inherited(parent, path, append);
    if (value == null || !append || !appends(parent, path)) {
      return value;
    }
    return value + "/" + pom.artifactId();
  }

  private static boolean appends(Pom parent, String path) {
    Element owner = path.startsWith("scm/") ? child(parent.project(), "scm") : parent.project();
    return owner == null || !owner.getAttribute(attribute(path)).equals("false");
  }

  /** The attribute that stops Maven appending to an inherited value: child.scm.url.inherit... */
  private static String attribute(String path) {
    return "child." + (path.startsWith("scm/") ? path.replace('/', '.') : "project.url")
        + ".inherit.append.path";
  }

  /** The POM's own section, else the nearest published parent's. */
  private Element section(Pom pom, String name) {
    for (Pom p = pom; p != null; p = p.parentKey() == null ? null : byCoordinates.get(p.parentKey())) {
      Element e = child(p.project(), name);
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  /**
   * A BOM must manage every published jar at the BOM's version, and nothing else: a BOM that
   * inherits a parent's dependencyManagement would pin its users' Jackson, JUnit, ...
   */
  private void checkBom(Pom bom) {
    Set<String> managed = new LinkedHashSet<>();
    for (Pom p = bom; p != null; p = p.parentKey() == null ? null : byCoordinates.get(p.parentKey())) {
      Element dm = child(p.project(), "dependencyManagement");
      Element deps = dm == null ? null : child(dm, "dependencies");
      List<String> foreign = new ArrayList<>();
      for (Element d : deps == null ? List.<Element>of() : children(deps, "dependency")) {
        String g = text(d, "groupId", null).replace("${project.groupId}", bom.groupId());
        String v = text(d, "version", null).replace("${project.version}", bom.version());
        if (!g.equals(bom.groupId())) {
          foreign.add(g + ":" + text(d, "artifactId", null));
        } else if (!v.equals(bom.version())) {
          problems.add(bom.artifactId() + " manages " + text(d, "artifactId", null) + " at " + v
              + ", not " + bom.version());
        }
        managed.add(text(d, "artifactId", null));
      }
      if (!foreign.isEmpty()) {
        problems.add(bom.artifactId() + (p == bom ? "" : " inherits from " + p.artifactId()
            + " that it") + " manages " + foreign.size() + " dependencies that are not "
            + bom.groupId() + "'s, which would pin its users' versions: " + String.join(", ",
            foreign.subList(0, Math.min(3, foreign.size()))) + (foreign.size() > 3 ? ", ..." : ""));
      }
    }
    for (Pom p : byCoordinates.values()) {
      if (p.packaging().equals("jar") && !managed.contains(p.artifactId())) {
        problems.add(bom.artifactId() + " does not manage " + p.artifactId());
      }
    }
  }

  private static boolean has(Element e, String name) {
    Element c = child(e, name);
    return c != null && !c.getTextContent().isBlank();
  }

  private static String text(Element e, String name, Element fallback) {
    Element c = child(e, name);
    if (c == null && fallback != null) {
      c = child(fallback, name);
    }
    return c == null ? "" : c.getTextContent().strip();
  }

  static Element child(Element e, String name) {
    List<Element> all = children(e, name);
    return all.isEmpty() ? null : all.get(0);
  }

  static List<Element> children(Element e, String name) {
    List<Element> out = new ArrayList<>();
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(name)) {
        out.add(c);
      }
    }
    return out;
  }
}
