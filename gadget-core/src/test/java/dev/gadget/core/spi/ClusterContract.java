package dev.gadget.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.spi.Cluster.FeedAppend;
import dev.gadget.core.spi.Cluster.FeedEvent;
import dev.gadget.core.spi.Cluster.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The compatibility kit every {@link Cluster} passes: the in-process one in core and the Redis
 * one. Extend it and return nodes of one fresh cluster from {@link #newNode}: every node made
 * during one test shares the same backend, and nothing of an earlier test. Published in the
 * gadget-core test-jar.
 */
public abstract class ClusterContract {
  protected static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration TTL = Duration.ofSeconds(10);

  private final List<Cluster> nodes = new ArrayList<>();

  /** A new node, {@code nodeId}, of the cluster this test uses. */
  protected abstract Cluster newNode(String nodeId);

  protected Cluster node(String nodeId) {
    Cluster c = newNode(nodeId);
    nodes.add(c);
    return c;
  }

  @AfterEach
  void closeNodes() {
    nodes.forEach(Cluster::close);
  }

  protected static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  @Nested
  class Presence {
    @Test
    void aLeasedDroneIsFoundOnEveryNode() {
      Cluster a = node("a");
      Cluster b = node("b");
      Lease lease = a.acquire("drone-1", TTL);
      assertThat(lease.nodeId()).isEqualTo("a");
      assertThat(lease.droneId()).isEqualTo("drone-1");
      assertThat(b.locate("drone-1")).contains(lease);
      assertThat(a.locate("drone-2")).isEmpty();
    }

    @Test
    void anotherNodeTakesTheDroneOverAndTheFirstLosesIt() {
      Cluster a = node("a");
      Cluster b = node("b");
      Lease first = a.acquire("d", TTL);
      Lease second = b.acquire("d", TTL);
      assertThat(second.fence()).isGreaterThan(first.fence());
      assertThat(a.renew(first, TTL)).as("the node that lost the drone renews").isFalse();
      a.release(first);
      assertThat(a.locate("d")).contains(second);
      assertThat(b.renew(second, TTL)).isTrue();
    }

    @Test
    void theLastFenceIsAtLeastEveryAcquiredOneAndEveryLaterAcquireIsGreater() {
      Cluster a = node("a");
      Cluster b = node("b");
      assertThat(a.lastFence()).as("before any acquire").isZero();
      Lease first = a.acquire("d1", TTL);
      Lease second = b.acquire("d2", TTL);
      long read = a.lastFence();
      assertThat(read).as("read on the node that acquired neither last")
          .isGreaterThanOrEqualTo(Math.max(first.fence(), second.fence()));
      assertThat(b.lastFence()).as("no acquire since: the same on every node").isEqualTo(read);
      Lease later = b.acquire("d1", TTL);
      assertThat(later.fence()).as("an acquire after the read").isGreaterThan(read);
      assertThat(a.lastFence()).isGreaterThanOrEqualTo(later.fence());
      a.release(first);
      b.release(later);
      assertThat(a.lastFence()).as("a release hands no number back")
          .isGreaterThanOrEqualTo(later.fence());
    }

    @Test
    void aHeldLeaseIsNumberedAgainAboveAFloorAndAReplacedOneIsNot() {
      Cluster a = node("a");
      Cluster b = node("b");
      Lease first = a.acquire("d", TTL);
      long floor = first.fence() + 1_000;
      Lease again = a.refence(first, floor, TTL);
      assertThat(again.fence()).as("above the floor (a store's fence)").isGreaterThan(floor);
      assertThat(again.nodeId()).isEqualTo("a");
      assertThat(b.locate("d")).contains(again);
      assertThat(a.renew(first, TTL)).as("the lease it replaced").isFalse();
      assertThat(a.renew(again, TTL)).isTrue();
      assertThat(b.acquire("e", TTL).fence()).as("every later acquire").isGreaterThan(floor);
      Lease taken = b.acquire("d", TTL);
      assertThat(a.refence(again, floor, TTL)).as("a lease another node replaced").isNull();
      assertThat(a.locate("d")).contains(taken);
      assertThat(a.refence(taken, 0, TTL).fence()).as("a floor below the counter")
          .isGreaterThan(taken.fence());
    }

    @Test
    void aLeaseNotRenewedExpiresAndCannotBeRenewedAfter() {
      Cluster a = node("a");
      Lease lease = a.acquire("d", Duration.ofMillis(300));
      assertThat(a.locate("d")).isPresent();
      await("the lease to expire", () -> a.locate("d").isEmpty());
      assertThat(a.renew(lease, TTL)).isFalse();
    }

    @Test
    void renewalsKeepALeasePastItsFirstTimeToLive() {
      Cluster a = node("a");
      Duration ttl = Duration.ofMillis(500);
      Lease lease = a.acquire("d", ttl);
      long until = System.nanoTime() + Duration.ofMillis(1200).toNanos();
      while (System.nanoTime() < until) {
        assertThat(a.renew(lease, ttl)).isTrue();
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      }
      assertThat(a.locate("d")).contains(lease);
    }

    @Test
    void releaseFreesTheDrone() {
      Cluster a = node("a");
      a.release(a.acquire("d", TTL));
      assertThat(a.locate("d")).isEmpty();
    }
  }

  @Nested
  class Chats {
    @Test
    void aChatClaimedForOneTurnIsRefusedToAnotherUntilReleased() {
      Cluster a = node("a");
      Cluster b = node("b");
      assertThat(a.claimChat("s", "t1", TTL)).isTrue();
      assertThat(b.chatClaim("s")).contains("t1");
      assertThat(b.claimChat("s", "t2", TTL)).as("another turn of the same chat").isFalse();
      assertThat(b.claimChat("other", "t2", TTL)).as("another chat").isTrue();
      b.releaseChat("s", "t2");
      assertThat(a.chatClaim("s")).as("a release by another turn changes nothing").contains("t1");
      a.releaseChat("s", "t1");
      assertThat(b.chatClaim("s")).isEmpty();
      assertThat(b.claimChat("s", "t2", TTL)).isTrue();
    }

    @Test
    void theNodeThatTakesTheTurnOverClaimsItAgainAndRenewsIt() {
      Cluster a = node("a");
      Cluster b = node("b");
      assertThat(a.claimChat("s", "t1", TTL)).isTrue();
      assertThat(b.claimChat("s", "t1", TTL)).as("the same turn, on another node").isTrue();
      assertThat(b.renewChat("s", "t1", TTL)).isTrue();
      assertThat(b.renewChat("s", "t2", TTL)).as("a turn that holds no claim").isFalse();
      assertThat(a.chatClaim("s")).contains("t1");
    }

    @Test
    void aClaimNotRenewedExpiresAndTheChatIsFreeAgain() {
      Cluster a = node("a");
      assertThat(a.claimChat("s", "t1", Duration.ofMillis(300))).isTrue();
      await("the claim to expire", () -> a.chatClaim("s").isEmpty());
      assertThat(a.renewChat("s", "t1", TTL)).isFalse();
      assertThat(a.claimChat("s", "t2", TTL)).isTrue();
    }

    @Test
    void renewalsKeepAClaimPastItsFirstTimeToLive() {
      Cluster a = node("a");
      Duration ttl = Duration.ofMillis(500);
      assertThat(a.claimChat("s", "t1", ttl)).isTrue();
      long until = System.nanoTime() + Duration.ofMillis(1200).toNanos();
      while (System.nanoTime() < until) {
        assertThat(a.renewChat("s", "t1", ttl)).isTrue();
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      }
      assertThat(a.chatClaim("s")).contains("t1");
    }

    @Test
    void ofManyTurnsClaimingOneChatAtOnceOnTwoNodesExactlyOneWins() throws Exception {
      List<Cluster> both = List.of(node("a"), node("b"));
      for (int round = 0; round < 20; round++) {
        String chat = "s" + round;
        CountDownLatch go = new CountDownLatch(1);
        List<String> winners = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          Cluster on = both.get(i % 2);
          String turn = "t" + i;
          Thread t = new Thread(() -> {
            try {
              go.await();
              if (on.claimChat(chat, turn, TTL)) {
                winners.add(turn);
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
          t.start();
          threads.add(t);
        }
        go.countDown();
        for (Thread t : threads) {
          t.join(WAIT.toMillis());
        }
        assertThat(winners).as("round %d", round).hasSize(1);
        assertThat(both.get(0).chatClaim(chat)).contains(winners.get(0));
      }
    }
  }

  @Nested
  class Feed {
    @Test
    void eventsAreReadInOrderAndARepeatOrAnOlderNumberIsDropped() {
      Cluster a = node("a");
      Cluster b = node("b");
      assertThat(a.append("t", 0, "response", "{\"t\":\"a\"}")).isTrue();
      assertThat(a.append("t", 1, "response", "{\"t\":\"b\"}")).isTrue();
      assertThat(a.append("t", 1, "response", "{\"t\":\"again\"}")).isFalse();
      assertThat(a.append("t", 0, "response", "{\"t\":\"older\"}")).isFalse();
      assertThat(a.append("t", 5, "toolCall", "{}")).isTrue();
      assertThat(b.read("t", -1, 100)).containsExactly(
          new FeedEvent(0, "response", "{\"t\":\"a\"}"),
          new FeedEvent(1, "response", "{\"t\":\"b\"}"),
          new FeedEvent(5, "toolCall", "{}"));
      assertThat(b.read("t", 0, 1)).containsExactly(
          new FeedEvent(1, "response", "{\"t\":\"b\"}"));
      assertThat(b.read("t", 5, 100)).isEmpty();
      assertThat(b.read("other", -1, 100)).isEmpty();
    }

    @Test
    void aBatchIsAppendedInOrderAcrossFeedsAndSaysWhichWereRepeats() {
      Cluster a = node("a");
      Cluster b = node("b");
      assertThat(a.append("t1", 3, "response", "\"old\"")).isTrue();
      List<FeedAppend> batch = List.of(
          new FeedAppend("t1", 2, "response", "\"older\""),
          new FeedAppend("t1", 4, "response", "\"a\""),
          new FeedAppend("t2", 0, "toolCall", "{}"),
          new FeedAppend("t1", 4, "response", "\"again\""),
          new FeedAppend("t1", 9, "response", "\"b\""));
      assertThat(a.appendAll(batch)).containsExactly(false, true, true, false, true);
      assertThat(a.appendAll(batch)).as("the same batch again").containsOnly(false);
      assertThat(b.read("t1", -1, 100)).containsExactly(
          new FeedEvent(3, "response", "\"old\""),
          new FeedEvent(4, "response", "\"a\""),
          new FeedEvent(9, "response", "\"b\""));
      assertThat(b.read("t2", -1, 100)).containsExactly(new FeedEvent(0, "toolCall", "{}"));
      assertThat(a.appendAll(List.of())).isEmpty();
    }

    @Test
    void aBatchWithAPayloadTooLongAppendsNothing() {
      Cluster a = node("a");
      String tooLong = "x".repeat(Cluster.MAX_MESSAGE_CHARS + 1);
      assertThatThrownBy(() -> a.appendAll(List.of(new FeedAppend("t", 0, "response", "1"),
          new FeedAppend("t", 1, "response", tooLong))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("at most");
      assertThat(a.read("t", -1, 10)).isEmpty();
    }

    @Test
    void aFollowerOnAnotherNodeGetsTheBacklogThenEachNewEventOnceInOrder() {
      Cluster a = node("a");
      Cluster b = node("b");
      for (int i = 0; i < 10; i++) {
        a.append("t", i, "response", "{\"i\":" + i + "}");
      }
      List<Long> seen = new CopyOnWriteArrayList<>();
      try (Cluster.Subscription s = b.follow("t", 4, e -> seen.add(e.seq()))) {
        for (int i = 10; i < 1000; i++) {
          a.append("t", i, "response", "{\"i\":" + i + "}");
        }
        await("every event", () -> seen.size() >= 995);
        List<Long> expected = new ArrayList<>();
        for (long i = 5; i < 1000; i++) {
          expected.add(i);
        }
        assertThat(seen).containsExactlyElementsOf(expected);
      }
    }

    @Test
    void followersOfTwoTurnsGetOnlyTheirOwn() {
      Cluster a = node("a");
      Cluster b = node("b");
      List<String> one = new CopyOnWriteArrayList<>();
      List<String> two = new CopyOnWriteArrayList<>();
      try (Cluster.Subscription s1 = b.follow("t1", -1, e -> one.add(e.json()));
          Cluster.Subscription s2 = b.follow("t2", -1, e -> two.add(e.json()))) {
        a.append("t1", 0, "response", "\"x\"");
        a.append("t2", 0, "response", "\"y\"");
        a.append("t1", 1, "response", "\"z\"");
        await("both turns", () -> one.size() == 2 && two.size() == 1);
        assertThat(one).containsExactly("\"x\"", "\"z\"");
        assertThat(two).containsExactly("\"y\"");
      }
    }

    @Test
    void aClosedSubscriptionGetsNothingMore() throws InterruptedException {
      Cluster a = node("a");
      Cluster b = node("b");
      List<Long> seen = new CopyOnWriteArrayList<>();
      Cluster.Subscription s = b.follow("t", -1, e -> seen.add(e.seq()));
      a.append("t", 0, "response", "{}");
      await("the first event", () -> seen.size() == 1);
      s.close();
      a.append("t", 1, "response", "{}");
      CountDownLatch marker = new CountDownLatch(1);
      try (Cluster.Subscription later = b.follow("t", 0, e -> marker.countDown())) {
        assertThat(marker.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      }
      assertThat(seen).containsExactly(0L);
    }

    @Test
    void anEndedFeedIsKeptForAWhileThenRemoved() {
      Cluster a = node("a");
      a.append("t", 0, "response", "{}");
      a.endFeed("t", Duration.ofMillis(300));
      assertThat(a.read("t", -1, 10)).hasSize(1);
      await("the feed to go", () -> a.read("t", -1, 10).isEmpty());
    }

    @Test
    void aPayloadOverTheBoundIsRefusedInWords() {
      Cluster a = node("a");
      String big = "x".repeat(Cluster.MAX_MESSAGE_CHARS + 1);
      assertThatThrownBy(() -> a.append("t", 0, "response", big))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
      assertThat(a.read("t", -1, 10)).isEmpty();
    }
  }

  @Nested
  class Mail {
    @Test
    void aNodeAnswersMailFromAnother() throws Exception {
      Cluster a = node("a");
      Cluster b = node("b");
      b.receiveMail((from, kind, body) -> from + "/" + kind + "/" + body);
      assertThat(a.send("b", "dispatch", "{\"turn\":1}", WAIT).get(10, TimeUnit.SECONDS))
          .isEqualTo("a/dispatch/{\"turn\":1}");
      a.receiveMail((from, kind, body) -> "self " + body);
      assertThat(a.send("a", "cancel", "x", WAIT).get(10, TimeUnit.SECONDS))
          .isEqualTo("self x");
    }

    @Test
    void manyRequestsAtOnceEachGetTheirOwnAnswer() throws Exception {
      Cluster a = node("a");
      Cluster b = node("b");
      b.receiveMail((from, kind, body) -> "re " + body);
      List<java.util.concurrent.CompletableFuture<String>> answers = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        answers.add(a.send("b", "k", String.valueOf(i), WAIT));
      }
      for (int i = 0; i < 100; i++) {
        assertThat(answers.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("re " + i);
      }
    }

    @Test
    void whatTheHandlerThrowsReachesTheSenderInWords() {
      Cluster a = node("a");
      Cluster b = node("b");
      b.receiveMail((from, kind, body) -> {
        throw new IllegalStateException("no drone of yours is connected");
      });
      assertThatThrownBy(() -> a.send("b", "dispatch", "{}", WAIT).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(ClusterException.class)
          .hasMessageContaining("no drone of yours is connected");
    }

    @Test
    void anAnswerLateForItsDeadlineFailsTheRequest() {
      Cluster a = node("a");
      Cluster b = node("b");
      CountDownLatch never = new CountDownLatch(1);
      b.receiveMail((from, kind, body) -> {
        never.await(5, TimeUnit.SECONDS);
        return "late";
      });
      long start = System.nanoTime();
      assertThatThrownBy(() -> a.send("b", "k", "", Duration.ofMillis(300))
          .get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(ClusterException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
      never.countDown();
    }

    @Test
    void mailToANodeThatIsNotThereFailsByItsDeadline() {
      Cluster a = node("a");
      assertThatThrownBy(() -> a.send("nobody", "k", "", Duration.ofMillis(500))
          .get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(ClusterException.class);
    }
  }
}
