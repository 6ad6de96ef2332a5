// The watched chat's skills and the tools the agent wrote itself (docs/SKILLS-AND-TOOLS.md, "Skills" and
// "Synthesized tools"), asked of the drone of the chat's latest turn (listAgentTools): each tool
// experimental (with its successful turns) or stable, Promote makes an experimental one stable,
// Delete removes a tool or a project skill from the project (after a confirmation; the next
// turn's diff shows it gone). Refreshed when the panel opens, when another chat is watched and
// when a turn of the watched chat ends, while the panel is open.
import { state } from './state.js';
import { $, el, showError } from './dom.js';
import { request } from './server.js';
import { confirmDelete } from './delete.js';

/** Asks again for the watched chat's skills and tools, if the panel is open. */
export async function refreshAgentTools() {
  const box = $('agent-tools');
  if (!$('agent-tools-panel').open) return;
  showError('agent-tools-error', '');
  const session = state.watched;
  if (!session) {
    box.textContent = 'No chat is open.';
    return;
  }
  try {
    const reply = await request('listAgentTools', { sessionId: session });
    if (state.watched === session) render(reply);
  } catch (e) {
    if (state.watched !== session) return;
    box.textContent = '';
    showError('agent-tools-error', e.message);
  }
}

function render(reply) {
  const box = $('agent-tools');
  box.textContent = '';
  const tools = reply.tools || [];
  const skills = reply.skills || [];
  if (!tools.length && !skills.length) {
    box.textContent = 'This chat\'s project has no skills and no tools of the agent\'s.';
    return;
  }
  const list = el('ul', 'agent-tools');
  for (const t of tools) {
    const li = item('tool', t, (t.experimental
      ? 'experimental · ' + t.successfulTurns + ' of ' + t.threshold + ' turns'
      : 'stable') + (t.scope === 'user' ? ' · your own' : ''));
    if (t.experimental) li.classList.add('experimental');
    if (t.experimental) li.appendChild(action('Promote', () => change('tool', t.name, 'promote')));
    if (t.scope !== 'user') li.appendChild(remove('tool', t));
    list.appendChild(li);
  }
  for (const s of skills) {
    const li = item('skill', s, s.scope === 'project' ? 'skill' : 'skill · your own');
    if (s.scope === 'project') li.appendChild(remove('skill', s));
    list.appendChild(li);
  }
  box.appendChild(list);
}

function item(kind, x, badge) {
  const li = el('li', 'agent-tool');
  li.dataset.kind = kind;
  li.dataset.name = x.name;
  li.title = x.description + ' (' + x.folder + ')';
  li.appendChild(el('span', 'agent-tool-name', x.name));
  li.appendChild(el('span', 'agent-tool-badge', badge));
  return li;
}

function remove(kind, x) {
  return action('Delete', async () => {
    if (await confirmDelete('Delete the ' + kind + ' ' + x.name + '?', 'Its folder '
      + x.folder + ' is removed from the project; the next turn\'s changes show it gone.')) {
      await change(kind, x.name, 'delete');
    }
  });
}

function action(label, onClick) {
  const b = el('button', 'link', label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

async function change(kind, name, what) {
  showError('agent-tools-error', '');
  const session = state.watched;
  try {
    const reply = await request('changeAgentTool', { sessionId: session, kind, name,
      action: what });
    if (state.watched === session) render(reply);
  } catch (e) {
    showError('agent-tools-error', (what === 'promote' ? 'Could not promote ' : 'Could not delete ')
      + name + ': ' + e.message);
  }
}

/** Refreshes when the panel opens. */
export function wireAgentTools() {
  $('agent-tools-panel').addEventListener('toggle', refreshAgentTools);
}
