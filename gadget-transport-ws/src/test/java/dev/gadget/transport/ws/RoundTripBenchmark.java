package dev.gadget.transport.ws;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;

/**
 * One-in-flight echo round trips through a Gadget server from many client threads at once
 * (Socket.IO events with an ack, answered from the handler pool): prints the latency
 * distribution and every round trip later than 100 ms. A frame stranded by Java-WebSocket's
 * write race would show as a round trip of tens of milliseconds (the write watch) or, without
 * the watch, as a stall. Not a test: run it with
 * {@code ./mvnw -B -q -pl gadget-transport-ws -am test-compile -Ptransport-benchmark
 * -Dbenchmark=RoundTripBenchmark -Dbenchmark.args="2000000 16"} (round trips, clients).
 */
public final class RoundTripBenchmark {
  private RoundTripBenchmark() {}

  private static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }

  public static void main(String[] args) throws Exception {
    long total = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
    int clients = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    WebSocketTransportServer server = WebSocketTransportServer.builder().build();
    server.start(new StrandedFrameStressTest.EchoAcceptor());
    try {
      URI uri = URI.create("ws://127.0.0.1:" + server.port() + WireSocket.PATH);
      EchoStress.run(uri, EchoStress.SOCKET_IO, clients, 2_000, 10_000); // warm-up
      long gc0 = gcMillis();
      EchoStress.Result r = EchoStress.run(uri, EchoStress.SOCKET_IO, clients, total / clients,
          30_000);
      System.out.print(r.table());
      System.out.println("GC time during the run: " + (gcMillis() - gc0) + " ms; load average "
          + ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() + " on "
          + Runtime.getRuntime().availableProcessors() + " cores");
      System.out.println("frames the write watch re-armed: " + server.framesRearmed());
    } finally {
      server.close();
    }
  }
}
