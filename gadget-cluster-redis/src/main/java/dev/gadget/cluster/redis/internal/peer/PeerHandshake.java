package dev.gadget.cluster.redis.internal.peer;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The handshake that opens a link between two nodes, each proving that it holds the cluster's
 * peer key without sending it: the connecting node sends {@code GADGETPR}, version 1, its id and
 * 16 random bytes; the accepting node answers with the same and its proof, HMAC-SHA256 over
 * "accept", both random values and both ids; the connecting node checks it and sends its own
 * proof ("connect", the same fields). A link whose proof is wrong, or whose peer is not the node
 * it was meant to reach, is closed before any frame.
 */
final class PeerHandshake {
  private static final byte[] MAGIC = "GADGETPR".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 1;
  private static final int NONCE = 16;
  private static final int MAX_ID = 200;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] key;
  private final String nodeId;

  /** @param key the cluster's peer key, the same on every node (never logged) */
  PeerHandshake(byte[] key, String nodeId) {
    this.key = key.clone();
    this.nodeId = nodeId;
  }

  /**
   * Opens a link to {@code expected}; the stream's reads must time out (the caller's socket).
   *
   * @throws PeerException when the peer is another node or fails its proof
   */
  void connect(DataInputStream in, DataOutputStream out, String expected) throws IOException {
    byte[] mine = nonce();
    hello(out, mine);
    out.flush();
    String peer = readHello(in);
    byte[] theirs = readBytes(in, NONCE);
    byte[] proof = readBytes(in, 32);
    if (!peer.equals(expected)) {
      throw new PeerException("the node at that address is " + peer + ", not " + expected);
    }
    if (!MessageDigest.isEqual(proof, proof("accept", mine, theirs, nodeId, peer))) {
      throw new PeerException("node " + peer + " does not hold this cluster's peer key");
    }
    out.write(proof("connect", mine, theirs, nodeId, peer));
    out.flush();
  }

  /**
   * Accepts a link; returns the connecting node's id.
   *
   * @throws PeerException when the peer fails its proof
   */
  String accept(DataInputStream in, DataOutputStream out) throws IOException {
    String peer = readHello(in);
    byte[] theirs = readBytes(in, NONCE);
    byte[] mine = nonce();
    hello(out, mine);
    out.write(proof("accept", theirs, mine, peer, nodeId));
    out.flush();
    byte[] proof = readBytes(in, 32);
    if (!MessageDigest.isEqual(proof, proof("connect", theirs, mine, peer, nodeId))) {
      throw new PeerException("a peer calling itself " + peer
          + " does not hold this cluster's peer key");
    }
    return peer;
  }

  private void hello(DataOutputStream out, byte[] nonce) throws IOException {
    out.write(MAGIC);
    out.writeByte(VERSION);
    byte[] id = PeerFrames.utf8(nodeId);
    out.writeShort(id.length);
    out.write(id);
    out.write(nonce);
  }

  private static String readHello(DataInputStream in) throws IOException {
    byte[] magic = readBytes(in, MAGIC.length);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new PeerException("not a Gadget node (its first bytes are not a peer handshake)");
    }
    int version = in.readUnsignedByte();
    if (version != VERSION) {
      throw new PeerException("peer protocol version " + version + ", this node speaks "
          + VERSION);
    }
    int n = in.readUnsignedShort();
    if (n < 1 || n > MAX_ID) {
      throw new PeerException("a node id of " + n + " bytes, outside 1 to " + MAX_ID);
    }
    return new String(readBytes(in, n), StandardCharsets.UTF_8);
  }

  private static byte[] readBytes(DataInputStream in, int n) throws IOException {
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }

  private static byte[] nonce() {
    byte[] b = new byte[NONCE];
    RANDOM.nextBytes(b);
    return b;
  }

  private byte[] proof(String role, byte[] connectorNonce, byte[] acceptorNonce,
      String connector, String acceptor) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update(role.getBytes(StandardCharsets.US_ASCII));
      mac.update(connectorNonce);
      mac.update(acceptorNonce);
      mac.update(PeerFrames.utf8(connector + "\n" + acceptor));
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  @Override
  public String toString() {
    return "PeerHandshake[node " + nodeId + "]"; // never the key
  }
}
