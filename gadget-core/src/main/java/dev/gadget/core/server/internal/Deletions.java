package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.spi.ChatStore;
import java.util.List;

/**
 * Deleting a user's chat session (with its turns) or project (with its sessions and their
 * turns): refused while a turn of it runs, and under the drones' lock, where turns start, so none
 * starts meanwhile. The watchers of each deleted session are told, and leave its room.
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
    synchronized (router.lock()) {
      if (turns.runningIn(s.id())) {
        throw new RequestException("the agent is still working in this chat: stop it or wait "
            + "for it to finish, then delete the chat");
      }
      store.deleteSession(s.id());
      turns.forget(s.id());
    }
    rooms.sessionDeleted(new Payloads.SessionDeleted(s.id(), s.projectId(), false));
  }

  void deleteProject(String userId, String projectId) {
    Project p = owned.project(userId, projectId);
    List<ChatSession> sessions;
    synchronized (router.lock()) {
      sessions = store.listSessions(userId, p.id());
      for (ChatSession s : sessions) {
        if (turns.runningIn(s.id())) {
          throw new RequestException("the agent is still working in the chat \"" + s.name()
              + "\" of this project: stop it or wait for it to finish, then delete the project");
        }
      }
      store.deleteProject(p.id());
      sessions.forEach(s -> turns.forget(s.id()));
    }
    for (ChatSession s : sessions) {
      rooms.sessionDeleted(new Payloads.SessionDeleted(s.id(), p.id(), true));
    }
  }
}
