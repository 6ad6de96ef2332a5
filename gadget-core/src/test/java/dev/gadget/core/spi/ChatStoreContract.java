package dev.gadget.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.User;
import dev.gadget.core.store.Tokens;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The compatibility kit every {@link ChatStore} passes. Extend it, return a fresh, empty store
 * from {@link #newStore()}, and every {@code @Nested} group runs against it. Published in the
 * gadget-core test-jar.
 */
public abstract class ChatStoreContract {
  /** Instants with millisecond precision: what every store must keep exactly. */
  protected static final Instant T0 = Instant.parse("2026-04-29T19:30:00.123Z");

  protected ChatStore store;

  /** A new, empty store. Called before every test. */
  protected abstract ChatStore newStore();

  @BeforeEach
  void openStore() {
    store = newStore();
  }

  @AfterEach
  void closeStore() throws Exception {
    store.close();
  }

  protected User user(String name) {
    User u = new User(Ids.next(), name, name.toUpperCase(), T0);
    store.createUser(u);
    return u;
  }

  protected Project project(User owner, String slug) {
    Project p = new Project(Ids.next(), owner.id(), slug, slug, "/repos/" + slug + ".git", T0);
    store.createProject(p);
    return p;
  }

  protected ChatSession session(User owner, Project project) {
    ChatSession s = new ChatSession(Ids.next(), owner.id(), project.id(), "s", null, T0);
    store.createSession(s);
    return s;
  }

  protected ChatTurn turn(ChatSession s, long seq) {
    ChatTurn t = ChatTurn.start(Ids.next(), s.id(), s.userId(), seq, "prompt " + seq, "build", T0);
    store.createTurn(t);
    return t;
  }

  @Nested
  class Users {
    @Test
    void createsAndFindsById() {
      User u = user("ada");
      assertThat(store.findUser(u.id())).contains(u);
      assertThat(store.findUserByName("ada")).contains(u);
      assertThat(store.findUser("nobody")).isEmpty();
      assertThat(store.findUserByName("nobody")).isEmpty();
    }

    @Test
    void refusesADuplicateUsername() {
      user("ada");
      assertThatThrownBy(() -> user("ada"))
          .isInstanceOfSatisfying(StoreException.class,
              e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.DUPLICATE));
    }
  }

  @Nested
  class TokensGroup {
    @Test
    void storesOnlyTheHashAndAuthenticatesByKind() {
      User u = user("ada");
      Tokens tokens = new Tokens(store);
      Tokens.Issued issued = tokens.issue(u.id(), TokenKind.DRONE, "laptop");
      assertThat(issued.stored().hash()).isEqualTo(Tokens.hash(issued.token()))
          .doesNotContain(issued.token());
      assertThat(issued.toString()).doesNotContain(issued.token());
      assertThat(store.findTokenByHash(issued.stored().hash())).contains(issued.stored());
      assertThat(tokens.authenticate(issued.token(), TokenKind.DRONE))
          .get().extracting(StoredToken::userId).isEqualTo(u.id());
      assertThat(tokens.authenticate(issued.token(), TokenKind.USER)).isEmpty();
      assertThat(tokens.authenticate(issued.token() + "x", TokenKind.DRONE)).isEmpty();
      assertThat(tokens.authenticate(null, TokenKind.DRONE)).isEmpty();
      assertThat(store.deleteToken(issued.stored().id())).isTrue();
      assertThat(tokens.authenticate(issued.token(), TokenKind.DRONE)).isEmpty();
      assertThat(store.deleteToken(issued.stored().id())).isFalse();
    }

    @Test
    void refusesATokenForAnUnknownUser() {
      StoredToken t = new StoredToken(Ids.next(), "ghost", TokenKind.USER, "", "0".repeat(64), T0);
      assertThatThrownBy(() -> store.saveToken(t))
          .isInstanceOfSatisfying(StoreException.class,
              e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
    }
  }

  @Nested
  class ProjectsAndSessions {
    @Test
    void listsOnlyTheOwnersInCreationOrder() {
      User ada = user("ada");
      User bob = user("bob");
      Project p1 = project(ada, "one");
      Project p2 = project(ada, "two");
      Project pb = project(bob, "bobs");
      assertThat(store.listProjects(ada.id())).containsExactly(p1, p2);
      assertThat(store.listProjects(bob.id())).containsExactly(pb);
      assertThat(store.findProject(p2.id())).contains(p2);

      ChatSession s1 = session(ada, p1);
      ChatSession s2 = session(ada, p2);
      session(bob, pb);
      assertThat(store.listSessions(ada.id(), null)).containsExactly(s1, s2);
      assertThat(store.listSessions(ada.id(), p2.id())).containsExactly(s2);
      assertThat(store.findSession(s1.id())).contains(s1);
    }

    @Test
    void recordsTheSessionsWorkspaceAndApprovalPolicy() {
      User ada = user("ada");
      ChatSession s = session(ada, project(ada, "one"));
      store.setSessionWorkspace(s.id(), "ws-1");
      store.setSessionApprovalPolicy(s.id(), "commands");
      assertThat(store.findSession(s.id())).contains(
          s.withWorkspaceId("ws-1").withApprovalPolicy("commands"));
      store.setSessionApprovalPolicy(s.id(), null);
      assertThat(store.listSessions(ada.id(), null)).containsExactly(s.withWorkspaceId("ws-1"));
      assertThatThrownBy(() -> store.setSessionWorkspace("missing", "ws"))
          .isInstanceOf(StoreException.class);
      assertThatThrownBy(() -> store.setSessionApprovalPolicy("missing", "never"))
          .isInstanceOf(StoreException.class);
    }

    @Test
    void recordsWhetherTheSessionsAgentMayWriteTools() {
      User ada = user("ada");
      ChatSession s = session(ada, project(ada, "one"));
      assertThat(store.findSession(s.id()).orElseThrow().createTools()).isNull();
      store.setSessionCreateTools(s.id(), false);
      assertThat(store.findSession(s.id())).contains(s.withCreateTools(false));
      store.setSessionCreateTools(s.id(), true);
      assertThat(store.listSessions(ada.id(), null)).containsExactly(s.withCreateTools(true));
      store.setSessionCreateTools(s.id(), null);
      assertThat(store.findSession(s.id())).contains(s);
      assertThatThrownBy(() -> store.setSessionCreateTools("missing", true))
          .isInstanceOf(StoreException.class);
    }

    @Test
    void renamesSessionsAndProjectsKeepingTheRest() {
      User ada = user("ada");
      Project p = project(ada, "one");
      ChatSession s = session(ada, p);
      store.setSessionWorkspace(s.id(), "ws-1");
      store.renameSession(s.id(), "Why the build fails");
      store.renameProject(p.id(), "Greeter (main)");
      assertThat(store.findSession(s.id())).contains(
          s.withWorkspaceId("ws-1").withName("Why the build fails"));
      assertThat(store.listSessions(ada.id(), p.id())).extracting(ChatSession::name)
          .containsExactly("Why the build fails");
      assertThat(store.findProject(p.id())).contains(p.withName("Greeter (main)"));
      assertThat(store.listProjects(ada.id())).containsExactly(p.withName("Greeter (main)"));
      assertThatThrownBy(() -> store.renameSession("missing", "x"))
          .isInstanceOf(StoreException.class)
          .extracting(e -> ((StoreException) e).reason()).isEqualTo(StoreException.Reason.NOT_FOUND);
      assertThatThrownBy(() -> store.renameProject("missing", "x"))
          .isInstanceOf(StoreException.class)
          .extracting(e -> ((StoreException) e).reason()).isEqualTo(StoreException.Reason.NOT_FOUND);
    }

    @Test
    void deletesASessionWithItsTurnsAndNothingElse() {
      User ada = user("ada");
      Project p = project(ada, "one");
      ChatSession doomed = session(ada, p);
      ChatSession kept = session(ada, p);
      ChatTurn t0 = turn(doomed, 0);
      store.appendBlock(t0.id(), new TurnBlock.Thinking(0, T0, "hmm"));
      ChatTurn running = turn(doomed, 1);
      ChatTurn other = turn(kept, 0);
      assertThat(store.deleteSession(doomed.id())).isTrue();
      assertThat(store.findSession(doomed.id())).isEmpty();
      assertThat(store.findTurn(t0.id())).isEmpty();
      assertThat(store.findTurn(running.id())).isEmpty();
      assertThat(store.listTurns(doomed.id())).isEmpty();
      assertThat(store.listUnfinishedTurns()).extracting(ChatTurn::id)
          .containsExactly(other.id());
      assertThat(store.listSessions(ada.id(), p.id())).containsExactly(kept);
      assertThat(store.listSessions(ada.id(), null)).containsExactly(kept);
      assertThat(store.listTurns(kept.id())).containsExactly(other);
      assertThat(store.listProjects(ada.id())).containsExactly(p);
      assertThat(store.deleteSession(doomed.id())).isFalse();
      assertThat(store.deleteSession("missing")).isFalse();
    }

    @Test
    void deletesAProjectWithItsSessionsAndTheirTurns() {
      User ada = user("ada");
      User bob = user("bob");
      Project doomed = project(ada, "one");
      Project kept = project(ada, "two");
      Project bobs = project(bob, "three");
      ChatSession s1 = session(ada, doomed);
      ChatSession s2 = session(ada, doomed);
      ChatSession s3 = session(ada, kept);
      ChatSession s4 = session(bob, bobs);
      ChatTurn t1 = turn(s1, 0);
      ChatTurn t2 = turn(s2, 0);
      store.appendBlock(t2.id(), new TurnBlock.Thinking(0, T0, "hmm"));
      ChatTurn t3 = turn(s3, 0);
      ChatTurn t4 = turn(s4, 0);
      assertThat(store.deleteProject(doomed.id())).isTrue();
      assertThat(store.findProject(doomed.id())).isEmpty();
      assertThat(store.listProjects(ada.id())).containsExactly(kept);
      assertThat(store.findSession(s1.id())).isEmpty();
      assertThat(store.findSession(s2.id())).isEmpty();
      assertThat(store.listSessions(ada.id(), doomed.id())).isEmpty();
      assertThat(store.listSessions(ada.id(), null)).containsExactly(s3);
      assertThat(store.findTurn(t1.id())).isEmpty();
      assertThat(store.findTurn(t2.id())).isEmpty();
      assertThat(store.listUnfinishedTurns()).extracting(ChatTurn::id)
          .containsExactlyInAnyOrder(t3.id(), t4.id());
      assertThat(store.listProjects(bob.id())).containsExactly(bobs);
      assertThat(store.listSessions(bob.id(), null)).containsExactly(s4);
      assertThat(store.deleteProject(doomed.id())).isFalse();
      assertThat(store.deleteProject("missing")).isFalse();
      assertThat(store.deleteProject(kept.id())).isTrue();
      assertThat(store.listProjects(ada.id())).isEmpty();
      assertThat(store.findSession(s3.id())).isEmpty();
      assertThat(store.listUnfinishedTurns()).extracting(ChatTurn::id).containsExactly(t4.id());
    }

    @Test
    void refusesADuplicateId() {
      User ada = user("ada");
      Project p = project(ada, "one");
      assertThatThrownBy(() -> store.createProject(p)).isInstanceOf(StoreException.class);
    }
  }

  @Nested
  class Turns extends TurnStoreGroup {
    Turns() {
      super(ChatStoreContract.this);
    }
  }

  @Nested
  class TurnFencing extends TurnFencingGroup {
    TurnFencing() {
      super(ChatStoreContract.this);
    }
  }

  @Nested
  class Drones {
    @Test
    void savesFindsAndUpdatesStatus() {
      User ada = user("ada");
      User bob = user("bob");
      DroneRegistration d = new DroneRegistration(Ids.next(), ada.id(), "ws-1", "host", "/w",
          DroneStatus.STARTING, T0, T0);
      store.saveDrone(d);
      store.saveDrone(new DroneRegistration(Ids.next(), bob.id(), "ws-2", "h", "/x",
          DroneStatus.AVAILABLE, T0, T0));
      assertThat(store.findDrone(d.id())).contains(d);
      assertThat(store.findDroneByWorkspace(ada.id(), "ws-1")).contains(d);
      assertThat(store.findDroneByWorkspace(bob.id(), "ws-1")).isEmpty();
      assertThat(store.listDrones(ada.id())).containsExactly(d);

      Instant later = T0.plusSeconds(60);
      store.updateDroneStatus(d.id(), DroneStatus.BUSY, later);
      DroneRegistration back = store.findDrone(d.id()).orElseThrow();
      assertThat(back.status()).isEqualTo(DroneStatus.BUSY);
      assertThat(back.lastSeenAt()).isEqualTo(later);
      assertThat(back.registeredAt()).isEqualTo(T0);

      store.saveDrone(back.withStatus(DroneStatus.OFFLINE, later));
      assertThat(store.listDrones(ada.id())).singleElement()
          .extracting(DroneRegistration::status).isEqualTo(DroneStatus.OFFLINE);
      assertThatThrownBy(() -> store.updateDroneStatus("missing", DroneStatus.BUSY, later))
          .isInstanceOf(StoreException.class);
    }
  }

  @Nested
  class Providers extends ProviderStoreGroup {
    Providers() {
      super(ChatStoreContract.this);
    }
  }
}
