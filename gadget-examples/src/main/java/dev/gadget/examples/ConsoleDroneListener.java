package dev.gadget.examples;

import dev.gadget.core.drone.DroneListener;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.TurnStats;
import java.io.PrintStream;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.CompletableFuture;

/** Prints what a drone does, one line each, for a person watching its console. */
final class ConsoleDroneListener implements DroneListener {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

  private final PrintStream out;
  private final String server;
  private final CompletableFuture<Integer> refused;
  private volatile DroneStatus last;

  /**
   * @param refused completed with exit code 1 when the server refuses the drone
   */
  ConsoleDroneListener(PrintStream out, String server, CompletableFuture<Integer> refused) {
    this.out = out;
    this.server = server;
    this.refused = refused;
  }

  private void say(String line) {
    out.println(LocalTime.now().format(TIME) + " [drone] " + line);
  }

  /** A line from the drone command itself, such as why it is still waiting. */
  void note(String line) {
    say(line);
  }

  @Override
  public void onConnected() {
    say("connected to " + server);
  }

  @Override
  public void onDisconnected(String reason) {
    if (reason != null && reason.contains("client disconnect")) {
      say("disconnected");
    } else {
      say("disconnected (" + reason + "); reconnecting by itself");
    }
  }

  @Override
  public void onRefused(String message) {
    say("the server refused this drone: " + message);
    refused.complete(1);
  }

  @Override
  public void onStatus(DroneStatus status, String turnId) {
    if (status == DroneStatus.BUSY) {
      say("busy: running turn " + turnId);
    } else if (status != last) {
      say(status.name().toLowerCase() + ": waiting for work");
    }
    last = status;
  }

  @Override
  public void onTurnEnded(String turnId, String status, String message) {
    onTurnEnded(turnId, status, message, null);
  }

  @Override
  public void onTurnEnded(String turnId, String status, String message, TurnStats stats) {
    say("turn " + turnId + " ended: " + status + (message == null ? "" : " (" + message + ")")
        + (stats == null || stats.toolsSummary().isEmpty() ? "" : "; "
        + stats.toolsSummary()));
  }
}
