package dev.gadget.examples;

import java.util.concurrent.CompletableFuture;

/** What a long-running command runs: closed when the process stops. */
interface Running extends AutoCloseable {
  /** Completes with an exit code when the command stops by itself (a refused drone, say). */
  CompletableFuture<Integer> exitCode();

  @Override
  void close();
}
