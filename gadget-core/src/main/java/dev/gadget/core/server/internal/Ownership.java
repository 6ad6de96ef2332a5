package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.spi.ChatStore;

/**
 * A user reaches only their own projects and chat sessions; anyone else's answer "not found",
 * the same as one that does not exist.
 */
final class Ownership {
  private final ChatStore store;

  Ownership(ChatStore store) {
    this.store = store;
  }

  Project project(String userId, String projectId) {
    return store.findProject(Requests.required(projectId, "projectId"))
        .filter(p -> p.userId().equals(userId))
        .orElseThrow(() -> new RequestException("project not found"));
  }

  ChatSession session(String userId, String sessionId) {
    return store.findSession(Requests.required(sessionId, "sessionId"))
        .filter(s -> s.userId().equals(userId))
        .orElseThrow(() -> new RequestException("chat session not found"));
  }
}
