package dev.gadget.examples.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * The load's wire, as cheap as it can be: one non-blocking WebSocket carrying Engine.IO 4 and
 * Socket.IO 5 packets, written and read by {@link RawLoad}'s one thread. Frames it sends are
 * masked with the all-zero key (RFC 6455 lets a client pick any key), so a packet's bytes go
 * out as they are; frames it reads are handed over as a slice of its read buffer, never copied
 * into a string. Everything it cannot take (a refused upgrade, a close, a Socket.IO connect
 * error) throws: a benchmark's load has no one to hide an error from.
 */
final class RawSocket {
  /** What a socket tells its owner. */
  interface Listener {
    /** The namespace accepted the connection. */
    void onConnected(RawSocket socket);

    /**
     * A Socket.IO event ({@code type} '2') or acknowledgement ('3'), {@code ackId} -1 when it
     * has none; the JSON array is {@code buf[from..to)}, valid only during the call.
     */
    void onPacket(RawSocket socket, char type, long ackId, byte[] buf, int from, int to);
  }

  private static final byte[] NO_MASK = {0, 0, 0, 0};
  private static final byte[] NONE = {};

  final Listener listener;
  private final RawLoad loop;
  private final String namespace;
  private final String auth;
  private final SocketChannel channel;
  private SelectionKey key;
  private boolean upgraded;
  private ByteBuffer in = ByteBuffer.allocate(1 << 16);
  private ByteBuffer out = ByteBuffer.allocate(1 << 16);
  /** The namespace as a packet names it: nothing for "/", else "/drone," and the like. */
  private final byte[] nsp;
  private long nextAckId;
  /** The port on 127.0.0.1 this socket connects to: its node's, in a cluster. */
  final int port;

  RawSocket(RawLoad loop, int port, String namespace, String auth, Listener listener)
      throws IOException {
    this.loop = loop;
    this.port = port;
    this.namespace = namespace;
    this.auth = auth;
    this.listener = listener;
    this.nsp = ("/".equals(namespace) ? "" : namespace + ",").getBytes(StandardCharsets.UTF_8);
    this.channel = SocketChannel.open();
    channel.configureBlocking(false);
  }

  /** Starts connecting to 127.0.0.1:{@link #port}; the loop finishes it. */
  void connect(Selector selector) throws IOException {
    channel.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
    key = channel.register(selector, SelectionKey.OP_CONNECT, this);
    if (channel.connect(new InetSocketAddress("127.0.0.1", port))) {
      connected();
    }
  }

  /** The key is ready: connect, read or write, as it says. */
  void ready() throws IOException {
    if (key.isConnectable() && channel.finishConnect()) {
      connected();
    }
    if (key.isValid() && key.isWritable()) {
      flush();
    }
    if (key.isValid() && key.isReadable()) {
      read();
    }
  }

  private void connected() throws IOException {
    key.interestOps(SelectionKey.OP_READ);
    String request = "GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    room(request.length()).put(request.getBytes(StandardCharsets.US_ASCII));
    flush();
  }

  private void read() throws IOException {
    if (!in.hasRemaining()) {
      in = grown(in, in.capacity() * 2);
    }
    if (channel.read(in) < 0) {
      throw new IOException(namespace + " socket closed by the server");
    }
    in.flip();
    if (!upgraded && !upgrade()) {
      in.compact();
      return;
    }
    while (frame()) {
      // one frame at a time, as long as whole frames are there
    }
    in.compact();
  }

  private boolean upgrade() {
    byte[] a = in.array();
    for (int i = in.position(); i + 3 < in.limit(); i++) {
      if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') {
        String head = new String(a, in.position(), i - in.position(), StandardCharsets.US_ASCII);
        if (!head.startsWith("HTTP/1.1 101")) {
          throw new IllegalStateException("upgrade refused: " + head);
        }
        in.position(i + 4);
        upgraded = true;
        return true;
      }
    }
    return false;
  }

  /** Handles one whole frame at the read position; false when none is whole yet. */
  private boolean frame() throws IOException {
    int p = in.position();
    int available = in.limit() - p;
    if (available < 2) {
      return false;
    }
    byte[] a = in.array();
    int opcode = a[p] & 0x0f;
    int length = a[p + 1] & 0x7f;
    int header = 2;
    if (length == 126) {
      header = 4;
      length = available < 4 ? -1 : ((a[p + 2] & 0xff) << 8) | (a[p + 3] & 0xff);
    } else if (length == 127) {
      header = 10;
      length = available < 10 ? -1 : (int) ByteBuffer.wrap(a, p + 2, 8).getLong();
    }
    if (length < 0 || available < header + length) {
      if (length >= 0 && header + length > in.capacity()) {
        in = grown(in, header + length + 1024);
      }
      return false;
    }
    if ((a[p] & 0x80) == 0) {
      throw new IllegalStateException("fragmented frames are not expected from the server");
    }
    int from = p + header;
    in.position(from + length);
    if (opcode == 0x9) {
      sendFrame(0x8a, a, from, length);
    } else if (opcode == 0x8) {
      throw new IOException(namespace + " socket closed by the server");
    } else if (opcode == 0x1) {
      engineIo(a, from, from + length);
    }
    return true;
  }

  private void engineIo(byte[] a, int from, int to) {
    switch (a[from]) {
      case '0' -> {
        byte[] connect = ("40" + new String(nsp, StandardCharsets.UTF_8) + auth)
            .getBytes(StandardCharsets.UTF_8);
        sendFrame(0x81, connect, 0, connect.length);
      }
      case '2' -> sendFrame(0x81, new byte[] {'3'}, 0, 1);
      case '4' -> socketIo(a, from + 1, to);
      default -> throw new IllegalStateException("unexpected Engine.IO packet: "
          + new String(a, from, to - from, StandardCharsets.UTF_8));
    }
  }

  private void socketIo(byte[] a, int from, int to) {
    char type = (char) a[from];
    int p = from + 1;
    if (p < to && a[p] == '/') { // a namespace, up to its comma
      while (p < to && a[p] != ',') {
        p++;
      }
      p++;
    }
    long ackId = -1;
    while (p < to && a[p] >= '0' && a[p] <= '9') {
      ackId = (ackId < 0 ? 0 : ackId * 10) + (a[p++] - '0');
    }
    switch (type) {
      case '0' -> listener.onConnected(this);
      case '2', '3' -> listener.onPacket(this, type, ackId, a, p, to);
      default -> throw new IllegalStateException(namespace + " refused: "
          + new String(a, from, to - from, StandardCharsets.UTF_8));
    }
  }

  /** Queues an event (or, with {@code ackId} >= 0, an event asking for an ack, or an ack). */
  void send(char type, long ackId, byte[] json, int from, int length) {
    byte[] id = ackId < 0 ? NONE : Long.toString(ackId).getBytes(StandardCharsets.US_ASCII);
    frameHeader(0x81, 2 + nsp.length + id.length + length);
    out.put((byte) '4').put((byte) type).put(nsp).put(id).put(json, from, length);
  }

  /** The next acknowledgement id this socket asks with. */
  long nextAckId() {
    return nextAckId++;
  }

  private void sendFrame(int first, byte[] payload, int from, int length) {
    frameHeader(first, length);
    out.put(payload, from, length);
  }

  private void frameHeader(int first, int length) {
    if (out.position() == 0) {
      loop.dirty(this);
    }
    room(length + 14).put((byte) first);
    if (length < 126) {
      out.put((byte) (0x80 | length));
    } else if (length < 65536) {
      out.put((byte) (0x80 | 126)).put((byte) (length >>> 8)).put((byte) length);
    } else {
      out.put((byte) (0x80 | 127)).putLong(length);
    }
    out.put(NO_MASK);
  }

  private ByteBuffer room(int n) {
    if (out.remaining() < n) {
      out = grown(out, Math.max(out.capacity() * 2, out.position() + n));
    }
    return out;
  }

  private static ByteBuffer grown(ByteBuffer b, int capacity) {
    ByteBuffer bigger = ByteBuffer.allocate(capacity);
    b.flip();
    bigger.put(b);
    return bigger;
  }

  /** Writes what is queued; what the socket does not take waits for it to be writable. */
  void flush() {
    if (out.position() == 0 || key == null) {
      return;
    }
    out.flip();
    try {
      channel.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(namespace + " socket write failed", e);
    }
    out.compact();
    int ops = out.position() > 0 ? SelectionKey.OP_READ | SelectionKey.OP_WRITE
        : SelectionKey.OP_READ;
    if (key.interestOps() != ops) {
      key.interestOps(ops);
    }
  }
}
