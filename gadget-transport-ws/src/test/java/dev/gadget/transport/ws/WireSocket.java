package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * A WebSocket client on a bare TCP socket, for tests that must do what a well-behaved client
 * library never does: send unmasked or malformed frames, never read, or stop mid-handshake.
 * Reads and writes block; every read has a timeout.
 */
public final class WireSocket implements AutoCloseable {
  static final String PATH = "/socket.io/?EIO=4&transport=websocket";

  final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private final Random maskKeys = new Random(1);

  private WireSocket(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** A TCP connection to the server, no handshake yet; {@code receiveBuffer} 0 for the default. */
  static WireSocket tcp(int port, int receiveBuffer) throws IOException {
    Socket s = new Socket();
    if (receiveBuffer > 0) {
      s.setReceiveBufferSize(receiveBuffer);
    }
    s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    s.setSoTimeout(10_000);
    s.setTcpNoDelay(true);
    return new WireSocket(s);
  }

  /** Connected and upgraded; the server's OPEN packet is the next frame. */
  static WireSocket open(int port) throws IOException {
    WireSocket w = tcp(port, 0);
    w.upgrade();
    return w;
  }

  /** The HTTP upgrade request's head. */
  static String upgradeRequest(int port) {
    return "GET " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
        + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  }

  /** Sends the upgrade and reads the 101 response head. */
  void upgrade() throws IOException {
    raw(upgradeRequest(socket.getPort()).getBytes(StandardCharsets.US_ASCII));
    String head = readHead();
    assertThat(head).startsWith("HTTP/1.1 101");
  }

  /** The HTTP response head, through its blank line. */
  String readHead() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed during the handshake: " + head);
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  void raw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** A frame with first byte {@code b0} (FIN, RSV, opcode), masked or not. */
  void frame(int b0, byte[] payload, boolean masked) throws IOException {
    byte[] mask = null;
    if (masked) {
      mask = new byte[4];
      maskKeys.nextBytes(mask);
    }
    raw(encode(b0, payload, mask));
  }

  /** A masked text frame. */
  void text(String text) throws IOException {
    frame(0x81, text.getBytes(StandardCharsets.UTF_8), true);
  }

  /** A client frame's bytes; masked with {@code mask} unless it is null. */
  public static byte[] encode(int b0, byte[] payload, byte[] mask) {
    ByteArrayOutputStream f = new ByteArrayOutputStream(payload.length + 14);
    f.write(b0);
    int maskBit = mask == null ? 0 : 0x80;
    if (payload.length <= 125) {
      f.write(maskBit | payload.length);
    } else if (payload.length <= 65535) {
      f.write(maskBit | 126);
      f.write(payload.length >>> 8);
      f.write(payload.length & 0xFF);
    } else {
      f.write(maskBit | 127);
      for (int i = 7; i >= 0; i--) {
        f.write((int) (((long) payload.length >>> (8 * i)) & 0xFF));
      }
    }
    if (mask != null) {
      f.writeBytes(mask);
    }
    for (int i = 0; i < payload.length; i++) {
      f.write(mask == null ? payload[i] : payload[i] ^ mask[i & 3]);
    }
    return f.toByteArray();
  }

  /** One frame the server sent. */
  record Frame(int opcode, byte[] payload) {
    String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }

    /** A close frame's code, or -1. */
    int closeCode() {
      return opcode == 8 && payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : -1;
    }

    /** A close frame's reason. */
    String closeReason() {
      return payload.length > 2 ? new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8) : "";
    }
  }

  /** The next frame from the server (waits up to the socket's timeout). */
  Frame read() throws IOException {
    int b0 = in.readUnsignedByte();
    int b1 = in.readUnsignedByte();
    long length = b1 & 0x7F;
    if (length == 126) {
      length = in.readUnsignedShort();
    } else if (length == 127) {
      length = in.readLong();
    }
    byte[] payload = new byte[(int) length];
    in.readFully(payload);
    return new Frame(b0 & 0x0F, payload);
  }

  /** The next text frame, skipping nothing. */
  String readText() throws IOException {
    Frame f = read();
    assertThat(f.opcode()).as("a text frame, not %s", f.text()).isEqualTo(1);
    return f.text();
  }

  /** Reads frames until a close frame, which it returns. */
  Frame readUntilClose() throws IOException {
    while (true) {
      Frame f = read();
      if (f.opcode() == 8) {
        return f;
      }
    }
  }

  /** True if the server closed the TCP connection (EOF or reset) within the socket's timeout. */
  boolean closedByServer() throws IOException {
    try {
      byte[] sink = new byte[8192];
      while (in.read(sink) >= 0) {
        // drain what the server sent before closing
      }
      return true;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (java.net.SocketException e) {
      return true; // reset
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
