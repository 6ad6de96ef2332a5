package dev.gadget.acp;

import com.agentclientprotocol.sdk.client.AcpClient;
import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The editor's side of ACP's {@code terminal/*}, for real: each terminal is a process started
 * with the command and arguments the agent asked for, in its {@code cwd}, its output kept up to
 * the agent's byte limit (the newest bytes, as ACP says), killed with its children on
 * {@code terminal/kill} and {@code terminal/release}.
 */
final class RealTerminals {
  /** Each request the agent made, in order: the method's last word and the terminal. */
  final List<String> calls = new CopyOnWriteArrayList<>();
  final List<AcpSchema.CreateTerminalRequest> created = new CopyOnWriteArrayList<>();
  final Map<String, Term> terminals = new ConcurrentHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();

  static final class Term {
    final Process process;
    final long limit;
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final Thread reader;
    volatile boolean truncated;

    Term(Process process, long limit) {
      this.process = process;
      this.limit = limit;
      this.reader = new Thread(this::read, "terminal-output");
      reader.setDaemon(true);
      reader.start();
    }

    private void read() {
      byte[] buf = new byte[8192];
      try (InputStream in = process.getInputStream()) {
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
          synchronized (out) {
            out.write(buf, 0, n);
          }
        }
      } catch (IOException e) {
        // the process was killed
      }
    }

    String output() {
      synchronized (out) {
        byte[] all = out.toByteArray();
        if (limit > 0 && all.length > limit) {
          truncated = true;
          return new String(all, all.length - (int) limit, (int) limit, StandardCharsets.UTF_8);
        }
        return new String(all, StandardCharsets.UTF_8);
      }
    }

    AcpSchema.TerminalExitStatus status() {
      return process.isAlive() ? null
          : new AcpSchema.TerminalExitStatus(process.exitValue(), null);
    }

    void kill() {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  void register(AcpClient.SyncSpec spec) {
    spec.createTerminalHandler(r -> {
      created.add(r);
      String id = "term-" + ids.incrementAndGet();
      calls.add("create " + id);
      List<String> command = new ArrayList<>();
      command.add(r.command());
      if (r.args() != null) {
        command.addAll(r.args());
      }
      try {
        Process p = new ProcessBuilder(command).directory(new File(r.cwd()))
            .redirectErrorStream(true).start();
        terminals.put(id, new Term(p, r.outputByteLimit() == null ? 0 : r.outputByteLimit()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new AcpSchema.CreateTerminalResponse(id);
    }).terminalOutputHandler(r -> {
      calls.add("output " + r.terminalId());
      Term t = terminals.get(r.terminalId());
      String output = t.output();
      return new AcpSchema.TerminalOutputResponse(output, t.truncated, t.status());
    }).waitForTerminalExitHandler(r -> {
      calls.add("wait_for_exit " + r.terminalId());
      Term t = terminals.get(r.terminalId());
      try {
        t.process.waitFor(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        t.reader.join(AcpClientHarness.DEADLINE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new AcpSchema.WaitForTerminalExitResponse(t.process.isAlive() ? null
          : t.process.exitValue(), null);
    }).killTerminalHandler(r -> {
      calls.add("kill " + r.terminalId());
      terminals.get(r.terminalId()).kill();
      return new AcpSchema.KillTerminalCommandResponse();
    }).releaseTerminalHandler(r -> {
      calls.add("release " + r.terminalId());
      Term t = terminals.get(r.terminalId());
      if (t != null) {
        t.kill();
      }
      return new AcpSchema.ReleaseTerminalResponse();
    });
  }
}
