package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.drone.WorkOrderCache;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.stream.StreamChunk;
import java.util.ArrayList;
import java.util.List;

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
    link.emit(Protocol.TOOL_STARTED, payload);
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
    link.emit(Protocol.TOOL_CALL, payload);
  }

  @Override
  public void onChunk(StreamChunk chunk) {
    String event;
    Object payload;
    synchronized (state) {
      if (job.abandoned) {
        return;
      }
      long seq = job.nextSeq++;
      if (chunk instanceof StreamChunk.Thinking t) {
        thinking.append(t.data());
        event = Protocol.THINKING;
        payload = new Payloads.TextEvent(job.turnId, seq, t.data(), ++streamed);
      } else if (chunk instanceof StreamChunk.Response r) {
        text.append(r.data());
        event = Protocol.RESPONSE;
        payload = new Payloads.TextEvent(job.turnId, seq, r.data(), ++streamed);
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
    link.emit(event, payload);
  }

  @Override
  public void onStats(dev.gadget.core.model.TurnStats soFar) {
    synchronized (state) {
      if (job.abandoned) {
        return;
      }
    }
    link.emit(Protocol.TURN_STATS, new Payloads.TurnStatsEvent(job.turnId, soFar));
  }

  @Override
  public void onComplete(AgentOutcome outcome) {
    completion.complete(job, outcome.status().toTurnStatus(), outcome.stats(), outcome.message());
  }
}
