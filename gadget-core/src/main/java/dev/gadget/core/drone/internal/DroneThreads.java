package dev.gadget.core.drone.internal;

import java.util.concurrent.ThreadFactory;

/** The drone's own threads: daemons, so that a drone never keeps its process alive. */
public final class DroneThreads {
  private DroneThreads() {}

  /** A factory of daemon threads named {@code name}. */
  public static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
