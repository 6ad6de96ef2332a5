// What a person does with a drone from the sidebar (seeds 000/001, which the IDE did): use it for
// the chat (requestSessionLock), take its workspace over and give it back (user mode), and see
// its workspace's state (getWorkspaceState). Each answer or refusal is said under the drone.
import { state } from './state.js';
import { el } from './dom.js';
import { request } from './server.js';

/** The drones whose state the person opened, kept open across the list's refreshes. */
const stateOpen = new Set();
/** What the last action on each drone answered, kept across the list's refreshes. */
const notes = new Map();

/** The controls of connected drone `d`; `refresh` redraws the list after an action. */
export function droneControls(d, refresh) {
  const box = el('div', 'drone-controls');
  const note = el('div', 'drone-note', notes.get(d._id) || '');
  note.setAttribute('role', 'status');
  const act = async (what, event, payload, done) => {
    notes.delete(d._id);
    note.textContent = '';
    try {
      const reply = await request(event, payload);
      notes.set(d._id, done(reply));
    } catch (e) {
      notes.set(d._id, what + ': ' + e.message);
    }
    note.textContent = notes.get(d._id);
    refresh();
  };
  const use = button('Use for this chat', () => act('Could not use this drone',
    'requestSessionLock', { sessionId: state.watched, droneId: d._id },
    () => 'This chat now runs on ' + d.hostname + '.'));
  use.disabled = !state.watched || d.status !== 'available';
  box.appendChild(use);
  const user = d.mode === 'user';
  box.appendChild(button(user ? 'Give back' : 'Take over', () => act(
    user ? 'Could not give the workspace back' : 'Could not take the workspace over',
    'requestWorkspaceMode', { droneId: d._id, mode: user ? 'idle' : 'user' },
    () => (user ? 'The agent may work here again.'
      : 'The workspace is yours: the agent takes no work here until you give it back.'))));
  const details = el('details', 'drone-state');
  details.appendChild(el('summary', null, 'Workspace state'));
  const pre = el('pre', 'drone-state-text');
  details.appendChild(pre);
  const load = async () => {
    pre.textContent = 'asking the drone…';
    try {
      const reply = await request('getWorkspaceState', { droneId: d._id });
      pre.textContent = describe(reply.state);
    } catch (e) {
      pre.textContent = e.message;
    }
  };
  details.addEventListener('toggle', () => {
    if (details.open) {
      stateOpen.add(d._id);
      load();
    } else {
      stateOpen.delete(d._id);
    }
  });
  if (stateOpen.has(d._id)) details.open = true;
  box.appendChild(details);
  box.appendChild(note);
  return box;
}

function button(label, onClick) {
  const b = el('button', 'link', label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

/** A workspace's state in a few lines for people. */
function describe(s) {
  if (!s) return 'no state';
  const w = s.workspace || {};
  const lines = ['mode: ' + s.mode + ', status: ' + s.status
    + (s.activeTurnId ? ', running turn ' + s.activeTurnId : '')];
  if (w.chatSession) lines.push('chat: ' + (w.chatSession.name || w.chatSession._id));
  if (w.lockedProject) lines.push('project: ' + (w.lockedProject.slug || w.lockedProject._id));
  for (const p of w.projects || []) {
    lines.push('checkout: ' + (p.slug || p._id) + (p.lastSyncAt ? ', synced ' + p.lastSyncAt : ''));
  }
  if (s.cachedTurn) lines.push('cached work order: turn ' + s.cachedTurn.turnId + ' (' + s.cachedTurn.status + ')');
  return lines.join('\n');
}
