package dev.gadget.cluster.redis.internal.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.spi.Cluster;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes' hubs on real sockets on 127.0.0.1, with a directory in memory in place of Redis:
 * pushed events arrive once and in order; a peer without the key, garbage and an oversized frame
 * are refused in words, and the hub goes on serving the nodes that hold the key.
 */
class PeerHubTest {
  private static final byte[] KEY =
      "a cluster's peer key, 32 bytes!!".getBytes(StandardCharsets.UTF_8);
  private final Map<String, String> directory = new ConcurrentHashMap<>();
  private final List<PeerHub> hubs = new ArrayList<>();

  @AfterEach
  void close() {
    hubs.forEach(PeerHub::close);
  }

  private PeerHub hub(String nodeId) throws IOException {
    PeerHub hub = new PeerHub(nodeId, KEY, new InetSocketAddress("127.0.0.1", 0), address -> {
      directory.put(nodeId, address);
      return Map.copyOf(directory);
    });
    hubs.add(hub);
    return hub;
  }

  @Test
  void eventsPushedReachTheFollowingNodeOnceAndInOrder() throws Exception {
    PeerHub a = hub("a");
    PeerHub b = hub("b");
    List<Long> got = new CopyOnWriteArrayList<>();
    b.follow("t1", -1, e -> got.add(e.seq()), l -> () -> { });
    await(() -> a.followedBy("t1", "b") && a.linkedPeers().contains("b"),
        "a knows that b follows t1, and has its link to b");

    long previous = -1;
    for (long seq = 8; seq <= 800; seq += 8) {
      a.publish(new Cluster.FeedAppend("t1", seq, "streamChunk", "{\"n\":" + seq + "}"),
          previous);
      previous = seq;
    }
    await(() -> got.size() == 100, "100 events pushed to b");
    List<Long> expected = new ArrayList<>();
    for (long seq = 8; seq <= 800; seq += 8) {
      expected.add(seq);
    }
    assertThat(got).containsExactlyElementsOf(expected);
    assertThat(b.pushedEvents()).isEqualTo(100);
  }

  @Test
  void aNodeWithoutTheKeyIsRefusedEitherWay() throws Exception {
    PeerHub a = hub("a");
    PeerHandshake wrong = new PeerHandshake(
        "another cluster's key, 32 bytes!".getBytes(StandardCharsets.UTF_8), "c");
    try (Socket s = connect(a)) {
      assertThatThrownBy(() -> wrong.connect(new DataInputStream(s.getInputStream()),
          new DataOutputStream(s.getOutputStream()), "a"))
          .isInstanceOf(PeerException.class)
          .hasMessage("node a does not hold this cluster's peer key");
    }
    try (Socket s = connect(a)) { // a connecting node that cannot prove it holds the key
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.write("GADGETPR".getBytes(StandardCharsets.US_ASCII));
      out.writeByte(1);
      out.writeShort(1);
      out.writeByte('c');
      out.write(new byte[16]);
      out.flush();
      new DataInputStream(s.getInputStream()).readFully(new byte[8 + 1 + 2 + 1 + 16 + 32]);
      out.write(new byte[32]); // not its proof
      out.flush();
      assertClosedBy(s);
    }
    assertStillServes(a);
  }

  @Test
  void garbageAndAnOversizedFrameCloseTheirLinkOnly() throws Exception {
    PeerHub a = hub("a");
    try (Socket s = connect(a)) {
      s.getOutputStream().write(
          "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertClosedBy(s);
    }
    try (Socket s = connect(a)) {
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
      new PeerHandshake(KEY, "c").connect(new DataInputStream(s.getInputStream()), out, "a");
      out.writeInt(PeerFrames.MAX_FRAME + 1);
      out.flush();
      assertClosedBy(s);
    }
    assertStillServes(a);
  }

  /** A node with the key links to {@code a} and gets what it follows. */
  private void assertStillServes(PeerHub a) throws Exception {
    PeerHub b = hub("b");
    List<Long> got = new CopyOnWriteArrayList<>();
    b.follow("t2", -1, e -> got.add(e.seq()), l -> () -> { });
    await(() -> a.followedBy("t2", "b") && a.linkedPeers().contains("b"),
        "a knows that b follows t2, and has its link to b");
    a.publish(new Cluster.FeedAppend("t2", 8, "streamChunk", "{}"), -1);
    await(() -> got.equals(List.of(8L)), "b got the event");
  }

  private static Socket connect(PeerHub hub) throws IOException {
    String[] where = hub.address().split(":");
    Socket s = new Socket(where[0], Integer.parseInt(where[1]));
    s.setSoTimeout(10_000);
    return s;
  }

  /** The other end closed the socket (a read ends), within the read timeout. */
  private static void assertClosedBy(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      while (in.read() >= 0) {
        // what it had sent before closing
      }
    } catch (java.net.SocketException e) {
      // reset: closed too
    }
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }
}
