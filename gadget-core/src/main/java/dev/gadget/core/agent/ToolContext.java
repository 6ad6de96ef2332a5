package dev.gadget.core.agent;

import dev.gadget.core.agent.tools.CommandSandbox;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * What a {@link Tool} may use while it runs: the project directory, confined path resolution,
 * cancellation, and state kept for the length of one run (one turn).
 *
 * <p>One context belongs to one run and is used from that run's thread, except
 * {@link #isCancelled()} and the actions registered with {@link #onCancel}, which may be called
 * from the thread that cancels.
 */
public interface ToolContext {
  /** The project directory, as a real path (symbolic links resolved). */
  Path projectDir();

  /**
   * Resolves a path the model gave, relative to the project directory, and refuses any that
   * leaves it: absolute paths, paths with a {@code ..} segment, and paths that go through a
   * symbolic link resolving outside the project (or through one that resolves nowhere). The file
   * need not exist.
   *
   * @param path the model's path; {@code ""} and {@code "."} mean the project directory
   * @return the resolved path, inside {@link #projectDir()}
   * @throws ToolException with a message for the model when the path is refused
   */
  Path resolve(String path);

  /** {@code file} relative to the project directory, with {@code /} separators, for messages. */
  String display(Path file);

  /** Whether the run has been cancelled. Thread-safe. */
  boolean isCancelled();

  /**
   * Runs {@code action} when the run is cancelled (at once, on the calling thread, if it already
   * was). Use it to kill what a blocking tool started. Close the returned registration when the
   * tool is done.
   */
  Registration onCancel(Runnable action);

  /**
   * Per-run state shared between tools, one instance per type: created by {@code factory} the
   * first time it is asked for in a run. The built-in file tools keep what the agent has read here.
   */
  <T> T state(Class<T> type, Supplier<? extends T> factory);

  /**
   * Reports output the tool produces while it runs, such as a command's lines as it prints them,
   * to whoever watches the run ({@link AgentListener#onToolOutput}); the model reads only the
   * result. Callable from any thread while {@link Tool#execute} runs; ignored after it returned.
   * Does nothing by default.
   */
  default void output(String text) {}

  /**
   * Where commands run ({@code AgentLoop.Builder#sandbox}); a tool that starts processes wraps
   * them in it. Default: {@link CommandSandbox#none()}.
   */
  default CommandSandbox sandbox() {
    return CommandSandbox.none();
  }

  /** A registered cancellation action. */
  interface Registration extends AutoCloseable {
    /** Unregisters the action. Idempotent. */
    @Override
    void close();
  }
}
