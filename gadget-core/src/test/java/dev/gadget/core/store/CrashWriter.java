package dev.gadget.core.store;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The child process of {@link JournaledChatStoreCrashTest}: opens the store in {@code args[0]}
 * (compacting every few kilobytes, so that kills also land in compactions) and writes from four
 * threads until it is killed, printing one line per acknowledged write, after the call returned:
 *
 * <pre>
 * session SESSION_ID
 * turn TURN_ID SESSION_ID
 * block TURN_ID SEQ
 * final TURN_ID STATUS
 * </pre>
 */
public final class CrashWriter {
  private CrashWriter() {}

  public static void main(String[] args) throws Exception {
    // One write per line: println fills the buffer, then flushes it.
    PrintStream out = new PrintStream(new java.io.BufferedOutputStream(
        new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 16), true, "UTF-8");
    JournaledChatStore store = JournaledChatStore.builder(Path.of(args[0]))
        .compactAfterBytes(16 * 1024).build();
    String name = "crash-" + ProcessHandle.current().pid();
    User user = new User(Ids.next(), name, name, Instant.now());
    store.createUser(user);
    Project project = new Project(Ids.next(), user.id(), "p", "p", "/p.git", Instant.now());
    store.createProject(project);
    out.println("ready");
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Thread t = new Thread(() -> write(store, user, project, out), "writer-" + i);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
  }

  private static void write(JournaledChatStore store, User user, Project project,
      PrintStream out) {
    while (true) {
      ChatSession session =
          new ChatSession(Ids.next(), user.id(), project.id(), "s", null, Instant.now());
      store.createSession(session);
      out.println("session " + session.id());
      for (int n = 0; n < 3; n++) {
        ChatTurn turn = ChatTurn.start(Ids.next(), session.id(), user.id(), n,
            "prompt " + "x".repeat(n * 50), "build", Instant.now());
        store.createTurn(turn);
        out.println("turn " + turn.id() + " " + session.id());
        for (int seq = 0; seq < 4; seq++) {
          store.appendBlock(turn.id(),
              new TurnBlock.Responding(seq, Instant.now(), "block " + seq + " of " + turn.id()));
          out.println("block " + turn.id() + " " + seq);
        }
        store.finalizeTurn(turn.id(), TurnStatus.FINISHED, null, null, Instant.now());
        out.println("final " + turn.id() + " finished");
      }
    }
  }
}
