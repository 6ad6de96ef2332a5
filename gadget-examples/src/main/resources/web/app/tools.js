// Tool blocks (seed 003's tool mode): a one-line summary over the parameters and the result.
// A tool shows while it runs (toolStarted), with its output as the drone streams it
// (toolOutput), and turns into its outcome in place, in the same element, when its toolCall
// comes: done or failed (the call's error flag), and how long it ran. A composite synthesized
// tool's block lists its inner steps (the call's steps) above its parameters.
import { el } from './dom.js';
import { approvalNote } from './approvals.js';

/** The most live output a running tool keeps on the page (its tail); the drone bounds it too. */
const MAX_LIVE = 100000;

/** A tool block's element for `call` (running when it has no response yet). */
export function toolElement(call) {
  const d = el('details', 'block tool');
  const s = el('summary');
  s.appendChild(el('span', 'dot'));
  s.appendChild(el('span', 'tool-name', call.name));
  s.appendChild(el('span', 'tool-hint', hintOf(call.parameters)));
  s.appendChild(el('span', 'tool-status'));
  d.appendChild(s);
  const body = el('div', 'tool-body');
  noteApproval(d, body, call);
  body.appendChild(el('div', 'label', 'Parameters'));
  body.appendChild(el('pre', 'tool-params', pretty(call.parameters)));
  body.appendChild(el('div', 'label tool-result-label'));
  body.appendChild(el('pre', 'tool-result'));
  d.appendChild(body);
  show(d, call, '');
  return d;
}

/** Whether a call failed: its error flag; a call stored before the flag, by its "Error: ". */
export function failed(call) {
  if (call.error !== undefined && call.error !== null) return !!call.error;
  return call.durationMs === undefined && typeof call.response === 'string'
    && call.response.startsWith('Error: ');
}

/** The running tool block of `callId` in a turn's view, or null. */
export function runningTool(tv, callId) {
  return tv.blocks.find((v) => v.mode === 'tool' && v.content.callId === callId
    && (v.content.response === undefined || v.content.response === null)) || null;
}

/** Appends output the running tool printed, in place. */
export function toolOutput(view, data) {
  view.live = ((view.live || '') + data);
  if (view.live.length > MAX_LIVE) view.live = view.live.slice(view.live.length - MAX_LIVE);
  view.el.querySelector('.tool-result').textContent = view.live;
}

/** The running tool ended: the same element shows its outcome. */
export function finishTool(view, call) {
  noteApproval(view.el, view.el.querySelector('.tool-body'), call);
  view.content = call;
  view.live = '';
  view.el.open = false;
  show(view.el, call, '');
}

/** Who approved or denied the call, and how, once (a call that waited for approval). */
function noteApproval(d, body, call) {
  if (d.dataset.approval) return;
  const note = approvalNote(call);
  if (!note) return;
  body.insertBefore(note, body.firstChild);
  d.dataset.approval = call.approval.decision;
}

function show(d, call, live) {
  const ran = call.response !== undefined && call.response !== null;
  const state = !ran ? 'running' : failed(call) ? 'failed' : 'done';
  d.dataset.toolState = state;
  d.classList.toggle('failed', state === 'failed');
  if (state === 'running') d.open = true; // its output shows as it comes
  d.querySelector('.dot').className = 'dot ' + state;
  const took = typeof call.durationMs === 'number' ? ' · ' + seconds(call.durationMs) : '';
  const found = !ran ? null : call.name === 'search_tools' ? searchOutcome(call)
    : call.name === 'create_tool' ? synthesisOutcome(call) : experimentalRun(call, state);
  d.querySelector('.tool-status').textContent = state === 'running' ? 'running…'
    : (found || state) + stepCount(call) + took;
  showSteps(d, call);
  d.querySelector('.tool-result-label').textContent = ran ? 'Result' : 'Output so far';
  d.querySelector('.tool-result').textContent = ran ? call.response : live;
}

/**
 * What a search_tools call found, in a few words: the tools it loaded, the closest when none fit,
 * or that nothing matched (its result's first line and "- name (similarity 0.87): …" lines).
 */
function searchOutcome(call) {
  const text = call.response || '';
  const names = [...text.matchAll(/^- (\S+) \(similarity ([0-9.]+)\)/gm)].map((m) => m[1]);
  if (text.startsWith('Loaded ')) return 'found ' + names.join(', ');
  if (text.startsWith('No tool is a close match')) return 'no close match; closest ' + names[0];
  if (text.startsWith('No tool matches')) return 'no tool found';
  return null;
}

/**
 * What a create_tool call came to: the tool registered (experimental at first), or the step of
 * its synthesis that failed (its result's first line).
 */
function synthesisOutcome(call) {
  const text = call.response || '';
  const ok = text.match(/^Tool (\S+) is registered/);
  if (ok) return 'registered ' + ok[1] + ' (experimental)';
  const no = text.match(/^(?:Error: )?Tool (\S+) is not registered: (\w+) failed: (.*)$/m);
  return no ? 'not registered: ' + no[2] + ' failed (' + no[3] + ')' : null;
}

/** A run of a synthesized tool still experimental: its state, marked so. */
function experimentalRun(call, state) {
  return /^(?:Error: )?\[experimental tool \S+: /.test(call.response || '')
    ? state + ' · experimental tool' : null;
}

/** How many inner steps a composite tool took, and how many failed: " · 2 steps, 1 failed". */
function stepCount(call) {
  const steps = Array.isArray(call.steps) ? call.steps : [];
  if (!steps.length) return '';
  const bad = steps.filter((s) => s.exitCode !== 0).length;
  return ' · ' + steps.length + (steps.length === 1 ? ' step' : ' steps')
    + (bad ? ', ' + bad + ' failed' : '');
}

/**
 * A composite tool's inner steps (call.steps, as the drone observed them in the sandbox), one
 * line each in the order they started, at the top of the tool's body.
 */
function showSteps(d, call) {
  const steps = Array.isArray(call.steps) ? call.steps : [];
  const old = d.querySelector('.tool-steps');
  if (old) old.remove();
  if (!steps.length) return;
  const list = el('ol', 'tool-steps');
  for (const s of steps) {
    const finished = typeof s.exitCode === 'number';
    const state = !finished ? 'failed' : s.exitCode === 0 ? 'done' : 'failed';
    const li = el('li', 'tool-step ' + state);
    li.appendChild(el('span', 'dot ' + state));
    li.appendChild(el('span', 'tool-step-name', s.name));
    li.appendChild(el('span', 'tool-step-status', !finished ? 'did not finish'
      : (state === 'done' ? 'done' : 'failed') + ' · exit ' + s.exitCode
        + (typeof s.durationMs === 'number' ? ' · ' + seconds(s.durationMs) : '')));
    list.appendChild(li);
  }
  const body = d.querySelector('.tool-body');
  body.insertBefore(list, body.querySelector('.label'));
}

function seconds(ms) {
  return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
}

function hintOf(parameters) {
  try {
    const args = JSON.parse(parameters || '{}');
    for (const v of Object.values(args)) {
      if (typeof v === 'string') return v.length > 60 ? v.slice(0, 59) + '…' : v;
    }
  } catch (e) {
    // not JSON: no hint
  }
  return '';
}

function pretty(parameters) {
  try {
    return JSON.stringify(JSON.parse(parameters || '{}'), null, 2);
  } catch (e) {
    return String(parameters);
  }
}
