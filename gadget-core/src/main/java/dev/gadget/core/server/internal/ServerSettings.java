package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.server.ProviderHosts;
import dev.gadget.core.server.SecretKeys;
import dev.gadget.core.server.ServerListener;
import dev.gadget.core.spi.ChatStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * What every part of the server shares: the store, the clock, the provider choice and the
 * timeouts, the listener, and the secret keys that seal users' API keys ({@code null}: none,
 * so no API key can be stored), how long a drone waits before retrying a turn after a crash, and
 * which hosts users may name as providers, as the server's builder set them.
 */
public record ServerSettings(
    ChatStore store,
    Clock clock,
    Function<ChatSession, ProviderConfig> providers,
    Duration droneGracePeriod,
    Duration silenceTimeout,
    Duration cancelTimeout,
    Duration ackTimeout,
    ServerListener listener,
    SecretKeys secrets,
    Duration crashRetryDelay,
    ProviderHosts providerHosts) {

  public ServerSettings {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(providers, "provider");
    Objects.requireNonNull(droneGracePeriod, "droneGracePeriod");
    Objects.requireNonNull(silenceTimeout, "silenceTimeout");
    Objects.requireNonNull(cancelTimeout, "cancelTimeout");
    Objects.requireNonNull(ackTimeout, "ackTimeout");
    Objects.requireNonNull(listener, "listener");
    crashRetryDelay = crashRetryDelay == null ? Duration.ZERO : crashRetryDelay;
    providerHosts = providerHosts == null ? ProviderHosts.publicOnly() : providerHosts;
  }
}
