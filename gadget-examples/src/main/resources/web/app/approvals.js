// Tool calls that wait for the user's approval (docs/PROTOCOL-APPROVALS.md, "Approvals"): the chat's
// approval policy (a picker by the Send button), a card per waiting call with its tool, its
// parameters (a command in full) and Approve / Approve for this chat / Deny (plain buttons:
// Tab reaches them, Enter or Space presses them), and the line a tool block shows about who
// decided. The first answer from any page wins; every page drops the card when the server
// says how the call was decided, when the turn ends, or when a new snapshot no longer has it.
import { state } from './state.js';
import { $, el } from './dom.js';
import { request } from './server.js';

const POLICIES = [
  ['never', 'Never ask'],
  ['commands', 'Ask before commands'],
  ['commands-and-writes', 'Ask before commands and writes'],
  ['everything', 'Ask before every tool'],
];

const pending = new Map(); // callId -> { p, gen, card }
let gen = 0;

/** Listens for the server's approval events (called once per socket). */
export function registerApprovals(socket) {
  socket.on('approvalPending', (p) => show(p, gen));
  socket.on('approvalDecided', (p) => drop(p.callId));
  socket.on('workOrderComplete', (p) => {
    for (const [id, w] of pending) if (w.p.turnId === p.turnId) drop(id);
  });
  ensurePicker();
}

/** A new watchSession request is on its way: what arrived before it is replaced by its snapshot. */
export function beforeWatch() {
  gen++;
}

/** The snapshot's approvals: the chat's policy and the calls that wait now. */
export function applyApprovals(a) {
  const sessionId = a ? a.sessionId : null;
  for (const [id, w] of pending) {
    // Kept: calls of this chat announced after the snapshot was asked for.
    if (w.p.sessionId !== sessionId || w.gen !== gen) drop(id);
  }
  for (const p of (a && a.pending) || []) show(p, gen);
  for (const w of pending.values()) if (!w.card) w.card = card(w.p);
  const picker = ensurePicker();
  picker.value = (a && a.policy) || 'never';
  picker.disabled = !sessionId;
}

/** The line a tool block shows about its approval, or null when the call did not wait. */
export function approvalNote(call) {
  const a = call && call.approval;
  if (!a) return null;
  let text;
  if (a.decision === 'approved') {
    text = a.decidedBy === 'session' ? 'Approved earlier for this chat'
      : 'Approved by ' + a.decidedBy;
  } else if (a.decision === 'approvedForSession') {
    text = 'Approved for this chat by ' + a.decidedBy;
  } else if (a.decidedBy === 'timeout') {
    text = 'Denied: ' + (a.reason || 'nobody answered in time');
  } else {
    text = 'Denied by ' + a.decidedBy + (a.reason ? ': ' + a.reason : '');
  }
  const n = el('div', 'approval-note ' + (a.decision === 'denied' ? 'denied' : 'approved'), text);
  n.dataset.decision = a.decision;
  return n;
}

function ensurePicker() {
  let picker = $('approval-policy');
  if (picker) return picker;
  picker = el('select', 'approval-policy');
  picker.id = 'approval-policy';
  picker.setAttribute('aria-label', 'Approval policy for this chat');
  for (const [value, label] of POLICIES) {
    const o = el('option', null, label);
    o.value = value;
    picker.appendChild(o);
  }
  picker.disabled = true;
  picker.addEventListener('change', async () => {
    const sessionId = state.watched;
    if (!sessionId) return;
    picker.disabled = true;
    try {
      const reply = await request('approvalPolicy', { sessionId, policy: picker.value });
      if (state.watched === sessionId) picker.value = reply.policy;
      $('composer-error').textContent = '';
    } catch (e) {
      $('composer-error').textContent = 'Could not change the approval policy: ' + e.message;
    } finally {
      picker.disabled = !state.watched;
    }
  });
  // labelled where a person reads it, not only for screen readers
  const label = el('label', 'approval-label', 'Approvals: ');
  label.appendChild(picker);
  const actions = document.querySelector('.composer-actions');
  actions.insertBefore(label, actions.firstChild);
  return picker;
}

function box() {
  let b = $('approvals');
  if (!b) {
    b = el('div', 'approvals');
    b.id = 'approvals';
    b.setAttribute('aria-live', 'polite');
    const composer = $('composer');
    composer.parentNode.insertBefore(b, composer);
  }
  return b;
}

function show(p, g) {
  if (!p || !p.callId) return;
  const known = pending.get(p.callId);
  if (known) {
    known.gen = Math.max(known.gen, g);
    return;
  }
  const w = { p, gen: g, card: null };
  pending.set(p.callId, w);
  if (p.sessionId === state.watched) w.card = card(p);
}

function drop(callId) {
  const w = pending.get(callId);
  if (!w) return;
  pending.delete(callId);
  if (w.card) w.card.remove();
}

function card(p) {
  const c = el('div', 'approval');
  c.dataset.callId = p.callId;
  c.dataset.turnId = p.turnId;
  c.setAttribute('role', 'group');
  c.setAttribute('aria-label', p.toolName + ' waits for your approval');
  const head = el('div', 'approval-head');
  head.appendChild(el('span', 'tool-name', p.toolName));
  head.appendChild(el('span', null, ' waits for your approval'));
  if (p.expiresAt) {
    head.appendChild(el('span', 'approval-expiry',
      ' (denied at ' + new Date(p.expiresAt).toLocaleTimeString() + ' if nobody answers)'));
  }
  c.appendChild(head);
  c.appendChild(el('pre', 'approval-params', p.command != null ? p.command : pretty(p.parameters)));
  const actions = el('div', 'approval-actions');
  const approve = button('Approve', 'approve', () => answer(c, p, { decision: 'approved' }));
  const forChat = button('Approve ' + p.toolName + ' for this chat', 'approve-session',
    () => answer(c, p, { decision: 'approvedForSession' }));
  const reason = el('input', 'deny-reason');
  reason.placeholder = 'Reason for denying (optional)';
  reason.setAttribute('aria-label', 'Reason for denying');
  reason.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      answer(c, p, { decision: 'denied', reason: reason.value });
    }
  });
  const deny = button('Deny', 'deny danger',
    () => answer(c, p, { decision: 'denied', reason: reason.value }));
  for (const x of [approve, forChat, reason, deny]) actions.appendChild(x);
  c.appendChild(actions);
  const error = el('p', 'error');
  error.setAttribute('role', 'alert');
  c.appendChild(error);
  box().appendChild(c);
  return c;
}

function button(label, className, onClick) {
  const b = el('button', className, label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

async function answer(c, p, choice) {
  const buttons = c.querySelectorAll('button, input');
  buttons.forEach((b) => { b.disabled = true; });
  try {
    await request('answerApproval', Object.assign({ turnId: p.turnId, callId: p.callId }, choice));
    drop(p.callId);
  } catch (e) {
    c.querySelector('.error').textContent = e.message;
    buttons.forEach((b) => { b.disabled = false; });
  }
}

function pretty(parameters) {
  try {
    return JSON.stringify(JSON.parse(parameters || '{}'), null, 2);
  } catch (e) {
    return String(parameters);
  }
}
