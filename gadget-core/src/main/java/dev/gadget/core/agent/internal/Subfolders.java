package dev.gadget.core.agent.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.TreeMap;

/** The folders a skills or tools folder holds, each a skill or a tool. */
public final class Subfolders {
  private Subfolders() {}

  /** The folders directly in {@code root}, hidden ones left out, in name order. */
  public static Collection<Path> of(Path root) throws IOException {
    TreeMap<String, Path> folders = new TreeMap<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, Files::isDirectory)) {
      for (Path d : dirs) {
        if (!d.getFileName().toString().startsWith(".")) {
          folders.put(d.getFileName().toString(), d);
        }
      }
    }
    return folders.values();
  }
}
