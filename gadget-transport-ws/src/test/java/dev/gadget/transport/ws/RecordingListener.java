package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient.ClientListener;
import dev.gadget.core.transport.TransportException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records a client connection's callbacks as lines, and what the errors were. */
final class RecordingListener implements ClientListener {
  final BlockingQueue<String> records = new LinkedBlockingQueue<>();
  volatile TransportException lastError;

  @Override
  public void onConnect(Connection connection) {
    records.add("connect " + connection.id());
  }

  @Override
  public void onConnectError(Connection connection, TransportException error) {
    lastError = error;
    records.add("connect_error " + error.getMessage());
  }

  @Override
  public void onDisconnect(Connection connection, String reason, boolean willReconnect) {
    records.add("disconnect " + reason + " " + willReconnect);
  }

  String expect(String prefix) throws InterruptedException {
    return expect(prefix, Duration.ofSeconds(10));
  }

  String expect(String prefix, Duration timeout) throws InterruptedException {
    String next = records.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(next).as("next client callback").isNotNull().startsWith(prefix);
    return next;
  }

  void expectNothingFor(Duration quiet) throws InterruptedException {
    assertThat(records.poll(quiet.toMillis(), TimeUnit.MILLISECONDS)).as("unexpected callback").isNull();
  }
}
