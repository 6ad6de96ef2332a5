package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.store.InMemoryChatStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A chat (or a project's chats) deleted in a cluster is claimed for the deletion: no node starts
 * a turn in it meanwhile, a turn running on another node refuses the deletion in words, and
 * every chat is free again after, whatever the deletion came to.
 */
class ChatDeletionClaimTest extends ClusterNodeFixture {
  private static final Duration TTL = Duration.ofSeconds(10);
  private final Cluster other = hub.join("b");

  @BeforeEach
  void joinA() {
    ServerSettings settings = settings(new InMemoryChatStore());
    join(settings, hub.join("a"), liveTurns(settings));
  }

  @Test
  void noNodeStartsATurnInAChatWhileItIsDeleted() {
    AtomicBoolean ran = new AtomicBoolean();
    node.whileClaimed(List.of("s1"), id -> "busy " + id, () -> {
      assertThat(other.claimChat("s1", "t1", TTL)).as("a turn of node b").isFalse();
      ran.set(true);
    });

    assertThat(ran).isTrue();
    assertThat(other.chatClaim("s1")).isEmpty();
  }

  @Test
  void aTurnRunningOnAnotherNodeRefusesTheDeletionAndFreesWhatWasClaimed() {
    assertThat(other.claimChat("s2", "t2", TTL)).isTrue(); // a turn of node b runs in s2
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(() -> node.whileClaimed(List.of("s1", "s2"),
        id -> "the agent is still working in " + id, () -> ran.set(true)))
        .isInstanceOf(RequestException.class)
        .hasMessage("the agent is still working in s2");

    assertThat(ran).as("the deletion").isFalse();
    assertThat(other.chatClaim("s1")).as("the chat claimed before the refusal").isEmpty();
    assertThat(other.chatClaim("s2")).contains("t2");
  }

  @Test
  void aFailedDeletionFreesItsChats() {
    assertThatThrownBy(() -> node.whileClaimed(List.of("s1"), id -> "busy",
        () -> {
          throw new RequestException("the store refused");
        })).hasMessage("the store refused");

    assertThat(other.claimChat("s1", "t1", TTL)).isTrue();
  }
}
