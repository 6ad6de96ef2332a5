package dev.gadget.store.mongo;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;

/**
 * Records the commands a client sends, for tests that count writes: {@link #openStore} opens a
 * store whose commands it records, or register it with
 * {@code MongoChatStore.builder().clientSettings(b -> b.addCommandListener(recorder))}.
 * Thread-safe.
 */
final class CommandRecorder implements CommandListener {
  /** The commands that write documents. */
  static final Set<String> WRITES = Set.of("insert", "update", "delete", "findAndModify");

  /**
   * One command as sent.
   *
   * @param name the command's name, such as {@code "update"}
   * @param command a copy of the command document, with its document sequences
   */
  record Command(String name, BsonDocument command) {
    /** The statements of a write command: its documents, updates or deletes. */
    List<BsonDocument> statements() {
      String field = switch (name) {
        case "insert" -> "documents";
        case "update" -> "updates";
        case "delete" -> "deletes";
        default -> null;
      };
      List<BsonDocument> out = new ArrayList<>();
      if (field == null) {
        out.add(command);
      } else {
        command.getArray(field).forEach(v -> out.add(v.asDocument()));
      }
      return out;
    }
  }

  private final List<Command> commands = new ArrayList<>();

  /** A store on {@code database} of the test server, whose commands this records. */
  MongoChatStore openStore(String database) {
    return MongoChatStore.builder()
        .connectionString(TestMongo.get().connectionString())
        .database(database)
        .clientSettings(b -> b.addCommandListener(this))
        .build();
  }

  @Override
  public void commandStarted(CommandStartedEvent event) {
    // The event's document is only valid during the call: keep a copy.
    Command c = new Command(event.getCommandName(), event.getCommand().clone());
    synchronized (commands) {
      commands.add(c);
    }
  }

  /** Every command recorded so far, in order. */
  List<Command> all() {
    synchronized (commands) {
      return List.copyOf(commands);
    }
  }

  /** The write commands recorded so far, in order. */
  List<Command> writes() {
    return all().stream().filter(c -> WRITES.contains(c.name())).toList();
  }

  /** Forgets everything recorded so far. */
  void clear() {
    synchronized (commands) {
      commands.clear();
    }
  }
}
