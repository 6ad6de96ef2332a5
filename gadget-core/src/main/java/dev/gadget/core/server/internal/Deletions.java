package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.protocol.ChangePayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Deleting a user's chat session (with its turns) or project (with its sessions and their
 * turns): refused while a turn of it runs, and under the drones' lock, where turns start, so none
 * starts meanwhile. The watchers of each deleted session are told, and leave its room; the
 * connected drones that ran its turns are told to remove their checkpoints.
 */
final class Deletions {
  private final ChatStore store;
  private final Ownership owned;
  private final DroneRouter router;
  private final LiveTurns turns;
  private final WatcherRooms rooms;

  Deletions(ChatStore store, Ownership owned, DroneRouter router, LiveTurns turns,
      WatcherRooms rooms) {
    this.store = store;
    this.owned = owned;
    this.router = router;
    this.turns = turns;
    this.rooms = rooms;
  }

  void deleteSession(String userId, String sessionId) {
    ChatSession s = owned.session(userId, sessionId);
    String slug = owned.project(userId, s.projectId()).slug();
    List<ChatTurn> gone;
    synchronized (router.lock()) {
      if (turns.runningIn(s.id())) {
        throw new RequestException("the agent is still working in this chat: stop it or wait "
            + "for it to finish, then delete the chat");
      }
      gone = store.listTurns(s.id());
      store.deleteSession(s.id());
      turns.forget(s.id());
    }
    forgetCheckpoints(userId, slug, gone);
    rooms.sessionDeleted(new Payloads.SessionDeleted(s.id(), s.projectId(), false));
  }

  /**
   * Tells each connected drone of {@code userId} that ran some of {@code gone} to remove their
   * checkpoints (a drone not connected keeps them until its own bound prunes them).
   */
  private void forgetCheckpoints(String userId, String slug, List<ChatTurn> gone) {
    Map<String, List<String>> byDrone = new HashMap<>();
    for (ChatTurn t : gone) {
      if (t.droneId() != null) {
        byDrone.computeIfAbsent(t.droneId(), k -> new ArrayList<>()).add(t.id());
      }
    }
    byDrone.forEach((droneId, ids) -> {
      ConnectedDrone drone = router.find(droneId);
      if (drone != null && drone.userId.equals(userId) && drone.connection != null
          && drone.connection.isConnected()) {
        drone.connection.emit(Protocol.FORGET_CHECKPOINTS, Protocol.args(
            new ChangePayloads.ChangesRequest(slug, ids, null, null, null, null, null)));
      }
    });
  }

  void deleteProject(String userId, String projectId) {
    Project p = owned.project(userId, projectId);
    List<ChatSession> sessions;
    List<ChatTurn> forgetLater;
    synchronized (router.lock()) {
      sessions = store.listSessions(userId, p.id());
      for (ChatSession s : sessions) {
        if (turns.runningIn(s.id())) {
          throw new RequestException("the agent is still working in the chat \"" + s.name()
              + "\" of this project: stop it or wait for it to finish, then delete the project");
        }
      }
      List<ChatTurn> gone = new ArrayList<>();
      sessions.forEach(s -> gone.addAll(store.listTurns(s.id())));
      store.deleteProject(p.id());
      sessions.forEach(s -> turns.forget(s.id()));
      forgetLater = gone;
    }
    forgetCheckpoints(userId, p.slug(), forgetLater);
    for (ChatSession s : sessions) {
      rooms.sessionDeleted(new Payloads.SessionDeleted(s.id(), p.id(), true));
    }
  }
}
