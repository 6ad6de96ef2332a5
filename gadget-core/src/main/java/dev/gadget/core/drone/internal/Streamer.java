package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.drone.WorkOrderCache;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.WorkspacePayloads;
import dev.gadget.core.stream.StreamChunk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Turns one agent run's events into protocol events with sequence numbers, journals each tool
 * round into the work order cache (a tool's start before it runs, its result before it is sent,
 * the round once the next one begins), and ends the turn when the run ends.
 */
final class Streamer implements AgentListener {
  private final Job job;
  private final DroneState state;
  private final DroneWorkspace workspace;
  private final ServerLink link;
  private final TurnCompletion completion;
  private final StringBuilder thinking = new StringBuilder();
  private final StringBuilder text = new StringBuilder();
  private final List<ToolCall> calls = new ArrayList<>();
  /** Guards the running tool's live output: the limiter, its call and its timer. */
  private final Object outputLock = new Object();
  private ToolOutputLimiter output;
  private String outputCallId;
  private ScheduledFuture<?> outputFlush;
  /** Thinking and response chunks streamed so far (seed 003's token count per chunk). */
  private long streamed;

  Streamer(Job job, DroneState state, DroneWorkspace workspace, ServerLink link,
      TurnCompletion completion) {
    this.job = job;
    this.state = state;
    this.workspace = workspace;
    this.link = link;
    this.completion = completion;
  }

  @Override
  public void onIteration(int iteration) {
    journalRound();
  }

  private void journalRound() {
    if (calls.isEmpty()) {
      thinking.setLength(0);
      text.setLength(0);
      return;
    }
    synchronized (state) {
      if (job.abandoned) {
        return;
      }
      job.cache = job.cache.withRound(new WorkOrderCache.Round(thinking.toString(),
          text.toString(), calls), job.nextSeq - 1);
      workspace.writeWorkOrder(job.cache);
    }
    thinking.setLength(0);
    text.setLength(0);
    calls.clear();
  }

  /**
   * A tool is about to run: its start is journaled first (with what the model said before it),
   * so that a drone that dies while it runs never runs it again.
   */
  @Override
  public void onToolStart(ToolCall call) {
    List<ToolCall> started = new ArrayList<>(calls);
    started.add(call);
    journalPending(started);
    Payloads.ToolStarted payload;
    synchronized (state) {
      if (job.abandoned) {
        return;
      }
      payload = new Payloads.ToolStarted(job.turnId, job.nextSeq++, call.callId(), call.name(),
          call.parameters());
    }
    link.emitTurn(job.turnId, payload.seq(), Protocol.TOOL_STARTED, payload);
    synchronized (outputLock) {
      output = new ToolOutputLimiter();
      outputCallId = call.callId();
    }
  }

  /** A running tool's output: sent at once, or within {@link ToolOutputLimiter}'s bounds. */
  @Override
  public void onToolOutput(ToolCall call, String text) {
    synchronized (outputLock) {
      if (output == null || !call.callId().equals(outputCallId)) {
        return;
      }
      output.add(text);
      flushOutput(false);
    }
  }

  /** The tool ended: what waits of its output goes before its result. */
  @Override
  public void onToolEnd(ToolCall call, boolean success, Duration duration) {
    synchronized (outputLock) {
      if (output != null) {
        flushOutput(true);
      }
      output = null;
      outputCallId = null;
      if (outputFlush != null) {
        outputFlush.cancel(false);
        outputFlush = null;
      }
    }
  }

  /** Sends the waiting output if it may go now, else makes sure a flush is scheduled. */
  private void flushOutput(boolean last) {
    long now = System.nanoTime();
    String text = output.take(now, last);
    if (text != null) {
      Payloads.ToolOutput payload;
      synchronized (state) {
        if (job.abandoned) {
          return;
        }
        payload = new Payloads.ToolOutput(job.turnId, job.nextSeq++, outputCallId, text);
      }
      // sent under outputLock: events leave in the order of their seq
      link.emitTurn(job.turnId, payload.seq(), Protocol.TOOL_OUTPUT, payload);
    } else if (output.pending() && outputFlush == null) {
      ToolOutputLimiter limiter = output;
      try {
        outputFlush = link.timer().schedule(() -> {
          synchronized (outputLock) {
            if (output == limiter) {
              outputFlush = null;
              flushOutput(false);
            }
          }
        }, output.delay(now), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        // the drone is stopping: the rest goes with the tool's end, if at all
      }
    }
  }

  private void journalPending(List<ToolCall> roundCalls) {
    synchronized (state) {
      if (job.abandoned) {
        return;
      }
      job.cache = job.cache.withPending(new WorkOrderCache.Round(thinking.toString(),
          text.toString(), roundCalls), job.nextSeq - 1);
      workspace.writeWorkOrder(job.cache);
    }
  }

  /**
   * Sends a tool call that the run did not make: one interrupted by a crash, with the result the
   * model reads for it.
   */
  void replay(ToolCall call) {
    Payloads.ToolCallEvent payload;
    synchronized (state) {
      if (job.abandoned) {
        return;
      }
      payload = new Payloads.ToolCallEvent(job.turnId, job.nextSeq++, call);
    }
    link.emitTurn(job.turnId, payload.seq(), Protocol.TOOL_CALL, payload);
  }

  @Override
  public void onChunk(StreamChunk chunk) {
    String event;
    Object payload;
    long seq;
    synchronized (state) {
      if (job.abandoned) {
        return;
      }
      seq = job.nextSeq++;
      if (chunk instanceof StreamChunk.Thinking t) {
        thinking.append(t.data());
        event = Protocol.THINKING;
        payload = new Payloads.TextEvent(job.turnId, seq, t.data(),
            t.data().isEmpty() ? streamed : ++streamed, t.reasoning());
      } else if (chunk instanceof StreamChunk.Response r) {
        text.append(r.data());
        event = Protocol.RESPONSE;
        payload = new Payloads.TextEvent(job.turnId, seq, r.data(), ++streamed);
      } else if (chunk instanceof StreamChunk.CompactionChunk c) {
        event = Protocol.COMPACTION;
        payload = new Payloads.CompactionEvent(job.turnId, seq, c.compaction());
      } else {
        ToolCall call = ((StreamChunk.ToolCallChunk) chunk).call();
        calls.add(call);
        // journaled before it is sent: a retry never runs it again nor tells of it twice
        job.cache = job.cache.withPending(new WorkOrderCache.Round(thinking.toString(),
            text.toString(), calls), seq);
        workspace.writeWorkOrder(job.cache);
        event = Protocol.TOOL_CALL;
        payload = new Payloads.ToolCallEvent(job.turnId, seq, call);
      }
    }
    link.emitTurn(job.turnId, seq, event, payload);
  }

  @Override
  public void onStats(dev.gadget.core.model.TurnStats soFar) {
    synchronized (state) {
      if (job.abandoned) {
        return;
      }
    }
    link.emit(Protocol.TURN_STATS, new WorkspacePayloads.TurnStatsEvent(job.turnId, soFar));
  }

  @Override
  public void onComplete(AgentOutcome outcome) {
    TurnCheckpoint checkpoint;
    synchronized (state) {
      checkpoint = job.checkpoint;
    }
    if (checkpoint != null) {
      checkpoint.report(job, state, link);
    }
    completion.complete(job, outcome.status().toTurnStatus(), outcome.stats(), outcome.message(),
        outcome.text().isEmpty() ? null : outcome.text());
  }
}
