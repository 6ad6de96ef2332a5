package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.tools.CommandSandbox;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link ToolContext} of one run. */
public final class RunToolContext implements ToolContext {
  private static final Logger log = LoggerFactory.getLogger(RunToolContext.class);

  private final ProjectPaths paths;
  private final Map<Class<?>, Object> state = new ConcurrentHashMap<>();
  private final Set<Runnable> onCancel = ConcurrentHashMap.newKeySet();
  private final CommandSandbox sandbox;
  private volatile boolean cancelled;
  /** Where the running tool's output goes; null while no tool runs. Guarded by this. */
  private Consumer<String> output;

  /** A context confined to {@code paths}, with no command sandbox. */
  public RunToolContext(ProjectPaths paths) {
    this(paths, CommandSandbox.none());
  }

  /** A context confined to {@code paths} whose commands run in {@code sandbox}. */
  public RunToolContext(ProjectPaths paths, CommandSandbox sandbox) {
    this.paths = Objects.requireNonNull(paths, "paths");
    this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
  }

  @Override
  public CommandSandbox sandbox() {
    return sandbox;
  }

  @Override
  public Path projectDir() {
    return paths.root();
  }

  @Override
  public Path resolve(String path) {
    return paths.resolve(path);
  }

  @Override
  public String display(Path file) {
    return paths.display(file);
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public Registration onCancel(Runnable action) {
    Objects.requireNonNull(action, "action");
    // Wrap so the same Runnable may be registered twice and removed once per registration.
    Runnable wrapped = action::run;
    onCancel.add(wrapped);
    if (cancelled && onCancel.remove(wrapped)) {
      runQuietly(wrapped);
    }
    return () -> onCancel.remove(wrapped);
  }

  @Override
  public <T> T state(Class<T> type, Supplier<? extends T> factory) {
    return type.cast(state.computeIfAbsent(type, t -> Objects.requireNonNull(factory.get())));
  }

  @Override
  public void output(String text) {
    if (text == null || text.isEmpty()) {
      return;
    }
    synchronized (this) {
      if (output != null) {
        output.accept(text);
      }
    }
  }

  /** The running tool's output goes to {@code sink} from now on; {@code null}: nowhere. */
  synchronized void outputTo(Consumer<String> sink) {
    output = sink;
  }

  /** Marks the run cancelled and runs the registered actions once. */
  public void cancel() {
    cancelled = true;
    for (Runnable r : onCancel) {
      if (onCancel.remove(r)) {
        runQuietly(r);
      }
    }
  }

  private static void runQuietly(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("a tool's cancel action threw", e);
    }
  }
}
