package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * What a turn did to the project's files, as a {@link TurnBlock.Diff diff block} holds it: the
 * files it added, modified and deleted, and their unified diff ({@code git diff --binary}
 * between the tree before the turn and after it). The patch is bounded: when it would be longer
 * than the drone's limit (256 KB written as JSON) it is cut at a file's boundary where possible,
 * {@code truncated} is set and {@code note} says what was left out; {@code files} lists every
 * file (up to 1,000; the note says when there were more). A binary
 * file is named in {@code files} ({@code binary}); its content is never in {@code patch}.
 *
 * @param files every changed file, in path order
 * @param patch the unified diff, possibly cut (see {@code truncated})
 * @param truncated whether {@code patch} (or the list of files) was cut
 * @param note what was cut, for people; null when nothing was
 * @param revertOf for the record of an undo: the turn whose changes were reverted; else null
 */
public record TurnDiff(List<FileChange> files, String patch, boolean truncated,
    @JsonInclude(JsonInclude.Include.NON_NULL) String note,
    @JsonInclude(JsonInclude.Include.NON_NULL) String revertOf) {
  public TurnDiff {
    files = files == null ? List.of() : List.copyOf(files);
    patch = patch == null ? "" : patch;
  }

  /** Whether no file changed. */
  public boolean isEmpty() {
    return files.isEmpty();
  }

  /** This diff recorded as the undo of {@code turnId}'s changes. */
  public TurnDiff asRevertOf(String turnId) {
    return new TurnDiff(files, patch, truncated, note, turnId);
  }

  /**
   * One changed file.
   *
   * @param path the path in the project, with {@code /} separators
   * @param change {@code "added"}, {@code "modified"} or {@code "deleted"}
   * @param binary whether git treats it as binary (its content is not in the patch)
   * @param added lines added (0 for a binary file)
   * @param removed lines removed (0 for a binary file)
   */
  public record FileChange(String path, String change, boolean binary, int added, int removed) {
    /** A file the turn created. */
    public static final String ADDED = "added";
    /** A file the turn changed. */
    public static final String MODIFIED = "modified";
    /** A file the turn removed. */
    public static final String DELETED = "deleted";

    public FileChange {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(change, "change");
    }
  }
}
