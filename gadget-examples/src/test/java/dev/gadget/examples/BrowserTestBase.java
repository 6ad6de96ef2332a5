package dev.gadget.examples;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every browser test starts from: a temporary directory, the page's fixture (closed after
 * each test), and Chromium found before any test runs (a clear failure where it is missing).
 */
abstract class BrowserTestBase {
  @TempDir Path tmp;
  PageFixture fx;

  @BeforeAll
  static void findChromium() {
    BrowserHarness.chromium();
  }

  @AfterEach
  void closeFixture() {
    if (fx != null) {
      fx.close();
    }
  }
}
