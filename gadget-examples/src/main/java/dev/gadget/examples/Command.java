package dev.gadget.examples;

import java.util.List;

/** A subcommand of the {@code gadget} jar. */
interface Command {
  /** The word that selects it, such as {@code "server"}. */
  String name();

  /** One line for the command list. */
  String summary();

  /** The usage line and what the command does, for {@code --help}. */
  String description();

  /** The options it accepts. */
  List<OptionSpec> options();

  /**
   * Runs the command. A one-shot command does its work and returns {@code null}; a long-running
   * one starts what it runs and returns it, and the caller keeps the process alive until the
   * user stops it or {@link Running#exitCode()} completes.
   *
   * @throws UsageException for a wrong command line
   * @throws CommandException when the command cannot do its work
   */
  Running run(Args args, Console console) throws Exception;
}
