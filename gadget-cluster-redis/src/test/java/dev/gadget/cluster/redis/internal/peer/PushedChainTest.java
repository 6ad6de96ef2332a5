package dev.gadget.cluster.redis.internal.peer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.spi.Cluster;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A subscription fed by the feed and by pushes gets each event once, in order, whatever comes
 * first.
 */
class PushedChainTest {
  private final List<Long> given = new ArrayList<>();
  private final PushedChain chain = new PushedChain(e -> given.add(e.seq()), -1);

  private static Cluster.FeedEvent e(long seq) {
    return new Cluster.FeedEvent(seq, "streamChunk", "{\"seq\":" + seq + "}");
  }

  @Test
  void pushesAheadOfTheFeedAreGivenOnceAndTheFeedsCopiesDropped() {
    assertThat(chain.fromPeer(-1, e(16))).isTrue();
    assertThat(chain.fromPeer(16, e(24))).isTrue();
    chain.fromFeed(e(16));
    chain.fromFeed(e(24));
    chain.fromFeed(e(32));
    assertThat(chain.fromPeer(24, e(32))).as("the feed was first").isFalse();
    assertThat(given).containsExactly(16L, 24L, 32L);
    assertThat(chain.pushed()).isEqualTo(2);
  }

  @Test
  void aPushAfterALostOneWaitsForTheFeedSoNothingIsSkipped() {
    assertThat(chain.fromPeer(-1, e(16))).isTrue();
    // the push of 24 was lost: 32's previous is 24, which this subscription has not had
    assertThat(chain.fromPeer(24, e(32))).isFalse();
    chain.fromFeed(e(16));
    chain.fromFeed(e(24));
    assertThat(chain.fromPeer(32, e(40))).as("32 not had yet").isFalse();
    chain.fromFeed(e(32));
    assertThat(chain.fromPeer(32, e(40))).isTrue();
    chain.fromFeed(e(40));
    assertThat(given).containsExactly(16L, 24L, 32L, 40L);
  }

  @Test
  void nothingIsGivenOnceClosed() {
    chain.fromFeed(e(16));
    chain.close();
    assertThat(chain.fromPeer(16, e(24))).isFalse();
    chain.fromFeed(e(24));
    assertThat(given).containsExactly(16L);
  }

  @Test
  void aPushWhosePreviousIsUnknownIsLeftToTheFeed() {
    chain.fromFeed(e(16));
    assertThat(chain.fromPeer(Long.MIN_VALUE, e(24))).as("a node that took the turn over")
        .isFalse();
    assertThat(chain.fromPeer(16, e(16))).as("a repeat").isFalse();
    chain.fromFeed(e(24));
    assertThat(given).containsExactly(16L, 24L);
  }
}
