// The watched chat's turns, kept in step with the server (seed 003): a turn is an ordered list
// of blocks (thinking, responding, tool); stream events append to the open block *in place*
// (the same DOM element is updated, never re-created), a change of mode or a tool call starts a
// new block. Events carry a per-turn seq: an event with seq <= the turn's lastSeq is already
// reflected and is ignored, so the watchSession snapshot plus the live tail shows every token
// exactly once, also after a reconnect. A finished turn is compared with the store.
import { state } from './state.js';
import { $, el } from './dom.js';
import { api } from './server.js';
import { addBlock, flush, markDirty, renderStatus, supersede } from './render.js';
import { updateComposer } from './composer.js';
import { failed, finishTool, runningTool, toolOutput } from './tools.js';
import { PLAN_TOOL } from './plan.js';
import { applyApprovals } from './approvals.js';
import { refreshDrones } from './drones.js';
import { foldPrompt, settleThinking } from './reading.js';

export function clearTurns() {
  state.turns = new Map();
  state.dirty.clear();
  $('turns').textContent = '';
}

/**
 * Renders a session snapshot: stored turns with their blocks; for a running turn, its
 * lastSeq and the open block not stored yet. Stored blocks at or after the open block's seq
 * were flushed after the snapshot was taken: the live events after lastSeq rebuild them.
 */
export function applySnapshot(snap) {
  clearTurns();
  const live = new Map((snap.live || []).map((l) => [l.turnId, l]));
  for (const t of snap.turns || []) {
    const tv = addTurn(t);
    const l = live.get(t._id);
    let blocks = t.blocks || [];
    if (l) {
      tv.lastSeq = l.lastSeq;
      tv.status = 'processing';
      if (l.stats) tv.stats = l.stats;
      if (l.openBlock) blocks = blocks.filter((b) => b.seq < l.openBlock.seq);
      else if (l.lastSeq < 0) blocks = [];
    }
    for (const b of blocks) addBlock(tv, b, false);
    if (l && l.openBlock) {
      tv.openIdx = tv.blocks.length;
      addBlock(tv, l.openBlock, true);
    }
    if (l && l.runningTool) showRunning(tv, l.runningTool, l.toolOutput);
    renderStatus(tv);
  }
  flush();
  applyApprovals(snap.approvals);
  scrollToEnd(true);
  updateComposer();
}

function addTurn(t) {
  const section = el('section', 'turn');
  section.dataset.turnId = t._id;
  const prompt = el('div', 'prompt');
  const promptText = el('div', 'prompt-text', t.prompt);
  prompt.appendChild(promptText);
  foldPrompt(promptText, t.prompt || '');
  section.appendChild(prompt);
  const blocksEl = el('div', 'blocks');
  section.appendChild(blocksEl);
  const footer = el('div', 'turn-footer');
  section.appendChild(footer);
  $('turns').querySelectorAll(':scope > .hint').forEach((h) => h.remove());
  $('turns').appendChild(section);
  const tv = {
    id: t._id, seq: t.seq, status: t.status, error: t.error || null, stats: t.stats || null,
    model: t.model || null,
    lastSeq: -1, openIdx: -1, blocks: [], el: section, blocksEl, footer,
  };
  state.turns.set(t._id, tv);
  return tv;
}

/** The server's turnStarted event. */
export function onTurnStarted(turn) {
  if (!turn || turn.sessionId !== state.watched || state.turns.has(turn._id)) return;
  const tv = addTurn(turn);
  renderStatus(tv);
  scrollToEnd(true);
  updateComposer();
  refreshDrones();
}

/** A running tool (its toolStarted) with what it printed so far. */
function showRunning(tv, p, output) {
  if (p.name === PLAN_TOOL) return; // drawn once it has run: the checklist, in place
  const call = { callId: p.callId, name: p.name, parameters: p.args };
  addBlock(tv, { seq: nextBlockSeq(tv), mode: 'tool', content: call }, true);
  if (output) toolOutput(tv.blocks[tv.blocks.length - 1], output);
}

function nextBlockSeq(tv) {
  return tv.blocks.length ? tv.blocks[tv.blocks.length - 1].seq + 1 : 0;
}

/**
 * The server's stream events: thinking, response, toolStarted, toolOutput, toolCall, compaction
 * and workOrderComplete.
 */
export function onStream(name, p) {
  const tv = state.turns.get(p.turnId);
  if (!tv || typeof p.seq !== 'number' || p.seq <= tv.lastSeq) return;
  tv.lastSeq = p.seq;
  if (name === 'thinking' || name === 'response') {
    const mode = name === 'thinking' ? 'thinking' : 'responding';
    const open = tv.openIdx >= 0 ? tv.blocks[tv.openIdx] : null;
    if (open && open.mode === mode) {
      open.content += p.data; // in place: same block, same element
      markDirty(open);
    } else {
      tv.openIdx = tv.blocks.length;
      addBlock(tv, { seq: nextBlockSeq(tv), mode, content: p.data }, true);
    }
  } else if (name === 'toolStarted') {
    tv.openIdx = -1;
    showRunning(tv, p, '');
  } else if (name === 'toolOutput') {
    const v = runningTool(tv, p.callId);
    if (v) toolOutput(v, p.data);
  } else if (name === 'toolCall') {
    tv.openIdx = -1;
    const v = runningTool(tv, p.call.callId);
    if (v) finishTool(v, p.call); // the same element: it ran, now its outcome
    else addBlock(tv, { seq: nextBlockSeq(tv), mode: 'tool', content: p.call }, false);
  } else if (name === 'turnChanges') {
    tv.openIdx = -1;
    addBlock(tv, { seq: nextBlockSeq(tv), mode: 'diff', content: p.diff }, false);
  } else if (name === 'compaction') {
    tv.openIdx = -1;
    addBlock(tv, { seq: nextBlockSeq(tv), mode: 'compaction', content: p.compaction }, false);
  } else if (name === 'workOrderComplete') {
    tv.openIdx = -1;
    tv.status = p.status;
    tv.error = p.error || null;
    tv.stats = p.stats || null;
    renderStatus(tv);
    updateComposer();
    reconcile(tv);
    refreshDrones();
    setTimeout(refreshDrones, 1500); // the drone reports itself available just after
  }
  settleThinking(tv);
  scrollToEnd(false);
}

/**
 * The server's blocksSuperseded event: a drone crashed while the model streamed and the round
 * streams again. Its blocks stay, dimmed; the open block closes, so the redone round's tokens
 * start a new block (as the server's aggregation does).
 */
export function onSuperseded(p) {
  const tv = state.turns.get(p.turnId);
  if (!tv) return;
  const seqs = new Set(p.blocks || []);
  for (const v of tv.blocks) if (seqs.has(v.seq)) supersede(v);
  tv.openIdx = -1;
}

/**
 * The server's turnResumed event: it restarted while the turn ran, took it back, and the drone
 * sends the turn again from after its last stored tool call. The blocks from fromBlock on go
 * (the replay rebuilds them, the text already shown included) and the stream goes on after
 * lastSeq.
 */
export function onResumed(p) {
  const tv = state.turns.get(p.turnId);
  if (!tv) return;
  for (const v of tv.blocks) if (v.seq >= p.fromBlock) v.el.remove();
  tv.blocks = tv.blocks.filter((v) => v.seq < p.fromBlock);
  tv.openIdx = -1;
  tv.lastSeq = p.lastSeq;
  tv.status = 'processing';
  renderStatus(tv);
  updateComposer();
}

/**
 * After a turn ends, compares what the page built from the stream with what the store kept,
 * and re-renders the turn's blocks from the store only if they differ.
 */
async function reconcile(tv) {
  const sessionId = state.watched;
  try {
    const reply = await api('/api/sessions/' + encodeURIComponent(sessionId) + '/turns');
    const stored = (reply.turns || []).find((t) => t._id === tv.id);
    if (!stored || state.turns.get(tv.id) !== tv) return;
    const same = stored.blocks.length === tv.blocks.length
      && stored.blocks.every((b, i) => sameBlock(b, tv.blocks[i]));
    if (!same) {
      tv.blocksEl.textContent = '';
      tv.blocks = [];
      tv.planEl = null;
      for (const b of stored.blocks) addBlock(tv, b, false);
      flush();
    }
    tv.status = stored.status;
    tv.error = stored.error || tv.error;
    tv.stats = stored.stats || tv.stats;
    renderStatus(tv);
  } catch (e) {
    // the live view stays; a reload shows the store
  } finally {
    tv.el.dataset.reconciled = 'true';
  }
}

function sameBlock(b, v) {
  if (!v || b.mode !== v.mode) return false;
  if (!!b.superseded !== !!v.superseded) return false;
  if (b.mode === 'diff') return JSON.stringify(b.content) === JSON.stringify(v.content);
  if (b.mode === 'tool') {
    return b.content.callId === v.content.callId && b.content.response === v.content.response
      && failed(b.content) === failed(v.content);
  }
  if (b.mode === 'compaction') return b.content.summary === v.content.summary;
  return b.content === v.content;
}

function scrollToEnd(force) {
  const t = $('turns');
  const near = t.scrollHeight - t.scrollTop - t.clientHeight < 120;
  if (force || near) t.scrollTop = t.scrollHeight;
}
