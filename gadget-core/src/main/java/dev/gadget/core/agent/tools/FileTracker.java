package dev.gadget.core.agent.tools;

import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the agent last saw of each file in this run: the SHA-256 of its content when it last read
 * or wrote it. Kept in {@link ToolContext#state}. Edits and overwrites are refused when the file
 * on disk no longer has that content (someone else changed it) or was never read in this run.
 */
final class FileTracker {
  private final Map<Path, String> seen = new ConcurrentHashMap<>();

  /**
   * Refuses a write under a {@link SandboxPolicy#READ_ONLY read-only} sandbox: it covers the file
   * tools as well as commands.
   */
  static void checkWritable(ToolContext context, String tool) {
    if (context.sandbox().policy() == SandboxPolicy.READ_ONLY) {
      throw new ToolException(tool + " refused: this drone is read-only (sandbox policy "
          + "read-only), so neither the file tools nor commands may change the project; say "
          + "what you would change instead");
    }
  }

  static FileTracker of(ToolContext context) {
    return context.state(FileTracker.class, FileTracker::new);
  }

  void saw(Path file, byte[] content) {
    seen.put(file, sha256(content));
  }

  /**
   * Checks that the agent may change {@code file}, whose content is now {@code current}.
   *
   * @throws ToolException if it never read the file in this run or the file changed since
   */
  void checkUnchanged(ToolContext context, Path file, byte[] current, String tool) {
    String last = seen.get(file);
    String name = context.display(file);
    if (last == null) {
      throw new ToolException(tool + " refused: read " + name + " with read_file first (it was "
          + "not read in this turn, and the user may have changed it)");
    }
    if (!last.equals(sha256(current))) {
      throw new ToolException(tool + " refused: " + name + " changed on disk since you last "
          + "read it (someone else may be editing it). Read it again with read_file, then retry.");
    }
  }

  static byte[] readBytes(ToolContext context, Path file) throws IOException {
    if (Files.isDirectory(file)) {
      throw new ToolException(context.display(file) + " is a directory; use list_dir");
    }
    if (!Files.exists(file)) {
      throw new ToolException(context.display(file) + " does not exist");
    }
    return Files.readAllBytes(file);
  }

  /** The file's text; refuses what is binary or not UTF-8. */
  static String text(ToolContext context, Path file, byte[] bytes) {
    int probe = Math.min(bytes.length, 8192);
    for (int i = 0; i < probe; i++) {
      if (bytes[i] == 0) {
        throw new ToolException(context.display(file) + " is a binary file (" + bytes.length
            + " bytes); these tools handle text only");
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new ToolException(context.display(file) + " is not UTF-8 text; these tools handle "
          + "UTF-8 text only");
    }
  }

  /**
   * Writes {@code bytes} to {@code file}. An existing file is replaced atomically (a temporary
   * file in the same directory, its permissions copied, moved over it), so a reader never sees a
   * half-written file; a new file is created with the default permissions.
   */
  static void write(Path file, byte[] bytes) throws IOException {
    Files.createDirectories(file.getParent());
    if (!Files.exists(file)) {
      Files.write(file, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      return;
    }
    Path tmp = Files.createTempFile(file.getParent(), "." + file.getFileName() + ".", ".tmp");
    try {
      Files.write(tmp, bytes);
      try {
        Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(file));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: the default permissions will do
      }
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** How many lines {@code text} has (a last line without a line break counts). */
  static int lineCount(String text) {
    if (text.isEmpty()) {
      return 0;
    }
    int n = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        n++;
      }
    }
    return text.endsWith("\n") ? n : n + 1;
  }

  static String sha256(byte[] content) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(content);
      StringBuilder sb = new StringBuilder(64);
      for (byte b : digest) {
        sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing", e);
    }
  }
}
