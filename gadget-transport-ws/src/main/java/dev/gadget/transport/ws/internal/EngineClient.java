package dev.gadget.transport.ws.internal;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Collections;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.drafts.Draft_6455;
import org.java_websocket.handshake.ServerHandshake;

/**
 * One WebSocket attempt of a {@link ClientManager}. A new one is made for every (re)connect, so
 * late callbacks from an old attempt are recognised and ignored. Its decoder is used only on
 * this WebSocket's read thread.
 */
final class EngineClient extends WebSocketClient {
  private final ClientManager manager;
  final SocketCodec.Decoder decoder;
  final Object sendLock = new Object();
  volatile Exception lastError;

  EngineClient(URI uri, ClientManager manager, ClientOptions options) {
    super(uri, new Draft_6455(Collections.emptyList(), options.maxPayload()));
    this.manager = manager;
    this.decoder = new SocketCodec.Decoder(options.maxAttachments());
    setConnectionLostTimeout(0);
    setTcpNoDelay(true);
    setDaemon(true);
  }

  /**
   * Always false, so that Java-WebSocket's read loop keeps reading after we start a close until
   * the server answers it (or the connection ends). Its loop stops, and drops the TCP
   * connection, as soon as the state is CLOSING; when a close starts while that thread is between
   * two reads, frames we queued just before (such as DISCONNECT packets) can be cut off.
   */
  @Override
  public boolean isClosing() {
    return false;
  }

  @Override
  public void onOpen(ServerHandshake handshake) {
    // The Engine.IO OPEN packet follows; nothing to do until then.
  }

  @Override
  public void onMessage(String message) {
    manager.onText(this, message);
  }

  @Override
  public void onMessage(ByteBuffer bytes) {
    manager.onBinary(this, bytes);
  }

  @Override
  public void onClose(int code, String reason, boolean remote) {
    manager.onEngineClosed(this, code, reason);
  }

  @Override
  public void onError(Exception ex) {
    manager.onEngineError(this, ex);
  }
}
