package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.protocol.PayloadException;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.Tokens;
import dev.gadget.core.transport.ConnectionRefusedException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides who a new connection is: a page signs in with a user token on {@code /} (a client of
 * seed 004's schema with one on {@code /agent}), a drone with a drone token and its workspace on
 * {@code /drone}. Anything else is refused with a reason a
 * person can act on.
 */
public final class Authenticator {
  private static final Logger log = LoggerFactory.getLogger(Authenticator.class);

  /** A signed-in page. */
  public record PagePrincipal(String userId, String tokenId) {}

  /** A client of seed 004's agent event schema, signed in as a page is. */
  public record AgentPrincipal(String userId, String tokenId) {}

  /** A signed-in drone, with what it said about its workspace. */
  public record DronePrincipal(String userId, String tokenId, String workspaceId,
      String hostname, String workspaceDir, String activeTurnId, WorkspaceMode mode,
      String recoveringTurnId) {}

  private final Tokens tokens;

  public Authenticator(Tokens tokens) {
    this.tokens = tokens;
  }

  /** A {@link PagePrincipal}, an {@link AgentPrincipal} or a {@link DronePrincipal}, or a refusal. */
  public Object authenticate(String namespace, JsonNode auth) {
    String token = auth.path("token").asText(null);
    if (Protocol.PAGE_NAMESPACE.equals(namespace)) {
      StoredToken t = check(token, TokenKind.USER);
      return new PagePrincipal(t.userId(), t.id());
    }
    if (Protocol.AGENT_NAMESPACE.equals(namespace)) {
      StoredToken t = check(token, TokenKind.USER);
      return new AgentPrincipal(t.userId(), t.id());
    }
    if (Protocol.DRONE_NAMESPACE.equals(namespace)) {
      StoredToken t = check(token, TokenKind.DRONE);
      Payloads.DroneAuth a;
      try {
        a = Protocol.payload(List.of(auth), Payloads.DroneAuth.class);
      } catch (PayloadException e) {
        throw new ConnectionRefusedException("bad auth payload: " + e.getMessage(), null);
      }
      return new DronePrincipal(t.userId(), t.id(), a.workspaceId(),
          a.hostname() == null ? "unknown" : a.hostname(),
          a.workspaceDir() == null ? "" : a.workspaceDir(), a.activeTurnId(),
          a.mode() == WorkspaceMode.USER ? WorkspaceMode.USER : WorkspaceMode.IDLE,
          a.recoveringTurnId());
    }
    throw new ConnectionRefusedException("Invalid namespace", null);
  }

  private StoredToken check(String token, TokenKind kind) {
    if (token == null || token.isEmpty()) {
      throw new ConnectionRefusedException("missing token", null);
    }
    Optional<StoredToken> t;
    try {
      t = tokens.authenticate(token, kind);
    } catch (StoreException e) {
      log.warn("cannot check a token: {}", e.getMessage());
      throw new ConnectionRefusedException("the server cannot check tokens right now", null);
    }
    if (t.isEmpty()) {
      boolean otherKind = tokens.authenticate(token,
          kind == TokenKind.USER ? TokenKind.DRONE : TokenKind.USER).isPresent();
      throw new ConnectionRefusedException(otherKind
          ? "this is a " + (kind == TokenKind.USER ? "drone" : "user")
              + " token; it cannot connect here"
          : "invalid token", null);
    }
    return t.get();
  }
}
