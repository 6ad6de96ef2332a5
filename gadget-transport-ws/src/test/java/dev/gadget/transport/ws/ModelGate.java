package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A point in a scripted model's stream where it waits, on its own thread, until opened. */
final class ModelGate {
  private final CountDownLatch reached = new CountDownLatch(1);
  private final CountDownLatch open = new CountDownLatch(1);
  private final Duration wait;

  /** A gate that holds the model at most {@code wait}, and that a test awaits as long. */
  ModelGate(Duration wait) {
    this.wait = wait;
  }

  /** Called on the model's thread: waits until opened (at most the gate's wait). */
  void pass() {
    reached.countDown();
    try {
      open.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  void awaitReached() throws InterruptedException {
    assertThat(reached.await(wait.toMillis(), TimeUnit.MILLISECONDS))
        .as("the model reached the gate").isTrue();
  }

  void open() {
    open.countDown();
  }
}
