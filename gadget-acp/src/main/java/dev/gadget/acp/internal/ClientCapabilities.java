package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the editor offers, from its {@code initialize}.
 *
 * @param readTextFile whether {@code fs/read_text_file} reads its buffers
 * @param writeTextFile whether {@code fs/write_text_file} writes through it
 * @param terminal whether it runs commands in {@code terminal/*}
 */
record ClientCapabilities(boolean readTextFile, boolean writeTextFile, boolean terminal) {
  static final ClientCapabilities NONE = new ClientCapabilities(false, false, false);

  static ClientCapabilities of(JsonNode capabilities) {
    if (capabilities == null || !capabilities.isObject()) {
      return NONE;
    }
    JsonNode fs = capabilities.path("fs");
    return new ClientCapabilities(fs.path("readTextFile").asBoolean(false),
        fs.path("writeTextFile").asBoolean(false), capabilities.path("terminal").asBoolean(false));
  }

  /** Whether any file goes through the editor. */
  boolean anyFs() {
    return readTextFile || writeTextFile;
  }
}
