package dev.gadget.examples;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.concurrent.CountDownLatch;

/**
 * A MongoDB-protocol server (mongo-java-server, in memory) as a process of its own, for tests
 * whose servers share one store: {@code MongoProcess PORT}; prints "listening" once it is.
 */
public final class MongoProcess {
  private MongoProcess() {}

  public static void main(String[] args) throws InterruptedException {
    MongoServer server = new MongoServer(new MemoryBackend());
    server.bind("127.0.0.1", Integer.parseInt(args[0]));
    System.out.println("listening");
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }
}
