package dev.gadget.core.agent.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProcessTrees;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code run_command}: runs a shell command ({@code /bin/sh -c}) in the project directory, with no
 * input, stdout and stderr merged, and a timeout. The result starts with the exit code (or says
 * the command timed out or was cancelled), then the output; its environment is the sandbox's
 * {@link CommandSandbox#environment clean one}; output over the cap keeps its head and
 * tail and says how much was left out. A non-zero exit is reported as an unsuccessful call. The
 * output also goes to {@link ToolContext#output} as the command prints it, for watchers.
 *
 * <p><b>No process is left behind.</b> The command runs in its own process group where the
 * platform allows ({@code setsid}), and once it exits, times out or the turn is cancelled, its
 * whole process tree is killed, background children included. Thread-safe; one instance serves
 * any number of runs.
 */
public final class RunCommandTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "run_command";

  private final Duration defaultTimeout;
  private final Duration maxTimeout;
  private final int maxOutputChars;

  /** A tool with a 2-minute default timeout, 10 minutes at most, and 30,000 bytes of output. */
  public RunCommandTool() {
    this(Duration.ofMinutes(2), Duration.ofMinutes(10), 30_000);
  }

  /**
   * A tool.
   *
   * @param defaultTimeout the timeout when the model gives none
   * @param maxTimeout the longest timeout the model may ask for
   * @param maxOutputChars the most output returned, in bytes: half from the head, half from the
   *     tail
   */
  public RunCommandTool(Duration defaultTimeout, Duration maxTimeout, int maxOutputChars) {
    if (defaultTimeout.isNegative() || defaultTimeout.isZero()
        || maxTimeout.compareTo(defaultTimeout) < 0) {
      throw new IllegalArgumentException("need 0 < defaultTimeout <= maxTimeout");
    }
    if (maxOutputChars < 100) {
      throw new IllegalArgumentException("maxOutputChars < 100");
    }
    this.defaultTimeout = defaultTimeout;
    this.maxTimeout = maxTimeout;
    this.maxOutputChars = maxOutputChars;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Run a shell command in the project directory (builds, tests, git). No input; stdout "
        + "and stderr are merged; long output keeps its head and tail. Default timeout "
        + defaultTimeout.toSeconds() + " s, at most " + maxTimeout.toSeconds() + " s. "
        + "Background processes are killed when the command ends.";
  }

  @Override
  public JsonNode parameters() {
    return Schemas.object()
        .required("command", "string", "the shell command line")
        .optional("timeout_seconds", "integer", "the timeout in seconds (default "
            + defaultTimeout.toSeconds() + ", at most " + maxTimeout.toSeconds() + ")")
        .build();
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext context) throws Exception {
    String command = Args.string(args, "command");
    if (command.isBlank()) {
      throw new ToolException("command is empty");
    }
    Integer seconds = Args.integer(args, "timeout_seconds");
    if (seconds != null && seconds < 1) {
      throw new ToolException("timeout_seconds must be 1 or more");
    }
    Duration timeout = seconds == null ? defaultTimeout
        : Duration.ofSeconds(Math.min(seconds, maxTimeout.toSeconds()));

    ProcessBuilder pb = new ProcessBuilder(
        ProcessTrees.shellCommand(command, context.sandbox().wrapper(context.projectDir())))
        .directory(context.projectDir().toFile())
        .redirectErrorStream(true);
    // The drone's own environment (its token, its keys) is not the command's.
    Map<String, String> env = context.sandbox().environment(pb.environment());
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.environment().put("PAGER", "cat");
    pb.environment().put("GIT_PAGER", "cat");
    pb.environment().put("GIT_TERMINAL_PROMPT", "0");
    if (context.isCancelled()) {
      throw new InterruptedException("cancelled");
    }
    Process process;
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new ToolException("could not start the command: " + e.getMessage());
    }
    ProcessHandle handle = process.toHandle();
    ProcessTrees.Guard guard;
    try {
      guard = ProcessTrees.start(process);
    } catch (IOException e) {
      ProcessTrees.killTree(handle);
      throw new ToolException("could not start the command: " + e.getMessage());
    }
    Capture capture = new Capture(process.getInputStream(), maxOutputChars / 2, context);
    Thread reader = new Thread(capture, "gadget-command-output-" + handle.pid());
    reader.setDaemon(true);
    reader.start();

    boolean exited;
    boolean interrupted = false;
    ToolContext.Registration onCancel = context.onCancel(() -> ProcessTrees.killTree(handle));
    try {
      exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      exited = false;
      interrupted = true;
    } finally {
      onCancel.close();
    }
    // Always: the command's background children must not outlive it (nor hold its output open).
    ProcessTrees.killTree(handle);
    if (guard != null) {
      guard.release();
    }
    boolean outputClosed = await(process, reader);
    boolean cancelled = interrupted || context.isCancelled();

    StringBuilder sb = new StringBuilder();
    boolean failed;
    if (cancelled) {
      sb.append("cancelled: the turn was cancelled and the command's process tree was killed");
      failed = true;
    } else if (!exited) {
      sb.append("timed out after ").append(timeout.toSeconds())
          .append(" s; the command's process tree was killed");
      failed = true;
    } else {
      int code = process.exitValue();
      sb.append("exit code: ").append(code);
      failed = code != 0;
    }
    sb.append('\n').append(capture.text());
    if (!outputClosed) {
      sb.append("\n[output cut: a process outside the command's tree kept it open]");
    }
    return failed ? ToolResult.error(sb.toString()) : ToolResult.ok(sb.toString());
  }

  /** Waits for the killed process and the end of its output; false if the output stayed open. */
  private static boolean await(Process process, Thread reader) {
    boolean interrupted = false;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return !reader.isAlive();
        }
        try {
          if (process.isAlive()) {
            process.waitFor(left, TimeUnit.NANOSECONDS);
            continue;
          }
          reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
          return !reader.isAlive();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Reads a stream to its end, keeping the first and the last {@code half} bytes, and hands each
   * piece to {@code live} as text as it arrives.
   */
  private static final class Capture implements Runnable {
    private final InputStream in;
    private final int half;
    private final ToolContext live;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPLACE)
        .onUnmappableCharacter(CodingErrorAction.REPLACE);
    /** Bytes of a character split across two reads. */
    private final ByteBuffer pending = ByteBuffer.allocate(8192 + 8);
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();
    private final byte[] tail;
    private int tailStart;
    private int tailLength;
    private long total;

    Capture(InputStream in, int half, ToolContext live) {
      this.in = in;
      this.half = half;
      this.live = live;
      this.tail = new byte[half];
    }

    @Override
    public void run() {
      byte[] buf = new byte[8192];
      try (InputStream stream = in) {
        for (int n; (n = stream.read(buf)) >= 0; ) {
          append(buf, n);
          stream(buf, n);
        }
      } catch (IOException e) {
        // the stream was closed under us: keep what arrived
      }
    }

    /** Hands the complete characters of what was read to the watchers; keeps a split one. */
    private void stream(byte[] buf, int n) {
      pending.put(buf, 0, n).flip();
      CharBuffer chars = CharBuffer.allocate(n + 8);
      decoder.decode(pending, chars, false);
      pending.compact();
      if (chars.position() > 0) {
        live.output(chars.flip().toString());
      }
    }

    private synchronized void append(byte[] buf, int n) {
      for (int i = 0; i < n; i++) {
        byte b = buf[i];
        if (head.size() < half) {
          head.write(b);
        } else if (tailLength < half) {
          tail[(tailStart + tailLength++) % half] = b;
        } else {
          tail[tailStart] = b;
          tailStart = (tailStart + 1) % half;
        }
      }
      total += n;
    }

    synchronized String text() {
      if (total == 0) {
        return "(no output)";
      }
      byte[] t = new byte[tailLength];
      for (int i = 0; i < tailLength; i++) {
        t[i] = tail[(tailStart + i) % half];
      }
      String h = head.toString(StandardCharsets.UTF_8);
      long omitted = total - head.size() - tailLength;
      String rest = new String(t, StandardCharsets.UTF_8);
      if (omitted == 0) {
        return h + rest;
      }
      return h + "\n[… " + omitted + " bytes of output left out …]\n" + rest;
    }
  }
}
