package dev.gadget.examples;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code gadget user add NAME} and {@code gadget user token NAME}. */
final class UserCommand implements Command {
  @Override
  public String name() {
    return "user";
  }

  @Override
  public String summary() {
    return "add a user, or issue new tokens for one (prints a page and a drone token)";
  }

  @Override
  public String description() {
    return """
        Usage: java -jar gadget.jar user add NAME [options]
               java -jar gadget.jar user token NAME [options]

        'add' creates a user; 'token' issues new tokens for an existing user (older tokens
        keep working). Either prints a page token (to sign in to the web page) and a drone
        token (for 'java -jar gadget.jar drone'); they are shown only now, the store keeps their
        SHA-256 hashes. Works on the same store as the server: while a server runs on --data-dir,
        through that server (it has the directory open); otherwise on the directory itself.
        """;
  }

  @Override
  public List<OptionSpec> options() {
    return Stores.OPTIONS;
  }

  @Override
  public Running run(Args args, Console console) {
    List<String> p = args.positional();
    if (p.size() != 2 || !(p.get(0).equals("add") || p.get(0).equals("token"))) {
      throw new UsageException("expected 'user add NAME' or 'user token NAME'");
    }
    // Checked before any store is opened: a mistake leaves no data directory behind.
    Accounts.checkUsername(p.get(1));
    Path dataDir = Stores.dataDir(args);
    if (p.get(0).equals("token") && args.get("mongo").isEmpty() && !Files.isDirectory(dataDir)) {
      throw new CommandException("there is no user '" + p.get(1) + "': there is no store in "
          + dataDir.toAbsolutePath().normalize() + " (give the server's --data-dir)");
    }
    LocalAdmin.Done done = LocalAdmin.run(args, p.get(0).equals("add"), p.get(1));
    Accounts.Issued issued = done.issued();
    PrintStream out = console.out();
    out.println((p.get(0).equals("add") ? "Created the user '" : "New tokens for '")
        + issued.user().username() + "' in " + done.where() + ".");
    out.println("  Page token:  " + issued.pageToken());
    out.println("  Drone token: " + issued.droneToken());
    out.println("They are shown only now; the store keeps their hashes.");
    return null;
  }
}
