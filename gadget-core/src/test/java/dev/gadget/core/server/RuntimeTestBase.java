package dev.gadget.core.server;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** What the runtime tests share: a temporary directory, and their fixture closed after each. */
abstract class RuntimeTestBase {
  @TempDir Path tmp;
  RuntimeFixture fx;

  @AfterEach
  void closeFixture() {
    if (fx != null) {
      fx.close();
    }
  }
}
