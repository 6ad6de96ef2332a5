package dev.gadget.core.drone;

import dev.gadget.core.model.TurnDiff;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Reads the changes between two commits into a {@link TurnDiff}, its patch bounded. */
final class DiffReader {
  private static final String[] DIFF = {"--no-renames", "--no-ext-diff", "--no-textconv",
      "--no-color"};

  /** The most files a diff lists. */
  static final int MAX_FILES = 1_000;
  /** The most characters of paths a diff lists. */
  static final int MAX_PATH_CHARS = 200_000;

  private final GitRunner git;
  private final int maxPatchBytes;

  DiffReader(GitRunner git, int maxPatchBytes) {
    this.git = git;
    this.maxPatchBytes = maxPatchBytes;
  }

  TurnDiff read(Path dir, String from, String to, String fullDiffCommand) {
    Map<String, int[]> counts = new HashMap<>();
    String[] numstat = git.ok(dir, Map.of(), args("--numstat", "-z", from, to)).split("\0");
    for (String rec : numstat) {
      String[] f = rec.split("\t", 3);
      if (f.length == 3) {
        // a binary file's counts are "-"
        counts.put(f[2], f[0].equals("-") ? new int[] {-1, -1}
            : new int[] {Integer.parseInt(f[0]), Integer.parseInt(f[1])});
      }
    }
    List<TurnDiff.FileChange> files = new ArrayList<>();
    String[] status = git.ok(dir, Map.of(), args("--name-status", "-z", from, to)).split("\0");
    int all = status.length / 2;
    long listed = 0;
    for (int i = 0; i + 1 < status.length; i += 2) {
      String path = status[i + 1];
      listed += path.length();
      if (files.size() == MAX_FILES || listed > MAX_PATH_CHARS) {
        break; // the list stays within the message limit too
      }
      int[] c = counts.getOrDefault(path, new int[] {0, 0});
      boolean binary = c[0] < 0;
      files.add(new TurnDiff.FileChange(path, change(status[i]), binary,
          binary ? 0 : c[0], binary ? 0 : c[1]));
    }
    if (files.isEmpty()) {
      return new TurnDiff(List.of(), "", false, null, null);
    }
    Path out = GitRunner.tempFile("gadget-diff");
    try {
      GitRunner.Result r = git.run(dir, Map.of(), out,
          args("--src-prefix=a/", "--dst-prefix=b/", from, to));
      if (r.exit() != 0) {
        throw new WorkspaceException("git diff failed: " + r.output());
      }
      long size = Files.size(out);
      byte[] bytes;
      try (InputStream in = Files.newInputStream(out)) {
        bytes = in.readNBytes(maxPatchBytes);
      }
      String patch = withoutBinary(new String(bytes, StandardCharsets.UTF_8));
      String binaries = binaryNote(files);
      int fit = jsonFit(patch, maxPatchBytes);
      if (size <= maxPatchBytes && fit == patch.length() && files.size() == all) {
        return new TurnDiff(files, patch, false, binaries, null);
      }
      boolean cut = fit < patch.length() || size > maxPatchBytes;
      if (cut) {
        patch = patch.substring(0, fit);
        int end = patch.lastIndexOf("\ndiff --git ");
        end = end > patch.length() / 2 ? end + 1 : patch.lastIndexOf('\n') + 1;
        patch = patch.substring(0, end);
      }
      int shown = patch.startsWith("diff --git ") ? 1 : 0;
      for (int i = patch.indexOf("\ndiff --git "); i >= 0;
          i = patch.indexOf("\ndiff --git ", i + 1)) {
        shown++;
      }
      String note = cut ? String.format(Locale.ROOT, "The diff is %,d KB; only its first %,d KB "
          + "are shown (%d of %d files in full or in part).", (size + 1023) / 1024,
          maxPatchBytes / 1024, shown, all) : "";
      if (files.size() < all) {
        note += String.format(Locale.ROOT, " Only the first %,d of %,d files are listed.",
            files.size(), all);
      }
      note = note.strip() + " `" + fullDiffCommand + "` in the drone's workspace shows all of it."
          + (binaries == null ? "" : " " + binaries);
      return new TurnDiff(files, patch, true, note, null);
    } catch (IOException e) {
      throw new WorkspaceException("cannot read the diff: " + e.getMessage(), e);
    } finally {
      GitRunner.delete(out);
    }
  }

  /**
   * {@code patch} without the sections of binary files (git's "Binary files … differ", which
   * {@code git apply} cannot apply): what is left applies as it is.
   */
  static String withoutBinary(String patch) {
    if (!patch.contains("\nBinary files ")) {
      return patch;
    }
    StringBuilder out = new StringBuilder(patch.length());
    int start = 0;
    while (start < patch.length()) {
      int next = patch.indexOf("\ndiff --git ", start);
      int end = next < 0 ? patch.length() : next + 1;
      String section = patch.substring(start, end);
      boolean binary = section.contains("\nBinary files ") && !section.contains("\n@@ ");
      if (!binary) {
        out.append(section);
      }
      start = end;
    }
    return out.toString();
  }

  /** What the patch leaves out of {@code files}: their binary ones, named; null when none. */
  static String binaryNote(List<TurnDiff.FileChange> files) {
    List<String> names = files.stream().filter(TurnDiff.FileChange::binary)
        .map(TurnDiff.FileChange::path).toList();
    if (names.isEmpty()) {
      return null;
    }
    String shown = String.join(", ", names.subList(0, Math.min(names.size(), 10)))
        + (names.size() > 10 ? " and " + (names.size() - 10) + " more" : "");
    return "Binary files are left out of the patch (it applies without them): " + shown + ".";
  }

  /**
   * How many of {@code s}'s characters fit in {@code max} bytes once written in JSON (escapes
   * counted), so that an event carrying the patch stays well within the transport's message
   * limit whatever the patch holds.
   */
  static int jsonFit(String s, int max) {
    long cost = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      cost += c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r' ? 2
          : c < 0x20 ? 6 : c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
      if (cost > max) {
        return i;
      }
    }
    return s.length();
  }

  private static String change(String status) {
    switch (status.isEmpty() ? 'M' : status.charAt(0)) {
      case 'A':
        return TurnDiff.FileChange.ADDED;
      case 'D':
        return TurnDiff.FileChange.DELETED;
      default:
        return TurnDiff.FileChange.MODIFIED;
    }
  }

  private static String[] args(String... rest) {
    List<String> a = new ArrayList<>(List.of("diff"));
    a.addAll(List.of(DIFF));
    a.addAll(List.of(rest));
    return a.toArray(String[]::new);
  }
}
