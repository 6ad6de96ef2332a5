// The sidebar: the project picker and the new-project form, the list of chats (searchable) and
// the New chat button, and which chat is watched (its snapshot fills the turns). A new chat is a
// draft until its first prompt: then it is created, titled from that prompt, and watched.
import { state, SESSION_KEY, hashParams, setHashSession } from './state.js';
import { $, el, showError } from './dom.js';
import { request } from './server.js';
import { applySnapshot, clearTurns } from './turns.js';
import { updateComposer } from './composer.js';
import { refreshDrones } from './drones.js';
import { refreshProviders, sessionChanged } from './providers.js';
import { closeDrawer } from './drawer.js';
import { showEmptyChat } from './empty.js';
import { addRenameButton, wireRenameProject } from './rename.js';
import { beforeWatch } from './approvals.js';
import { addDeleteButton, wireDeleteProject } from './delete.js';
import { refreshAgentTools } from './agent-tools.js';

/** After every (re)connect: projects, sessions, drones, and watch the session again. */
export async function refreshAll() {
  const reply = await request('listProjects', {});
  state.projects = reply.projects || [];
  const wanted = hashParams().get('s') || localStorage.getItem(SESSION_KEY);
  let session = null;
  if (wanted) {
    const all = await request('listSessions', {});
    session = (all.sessions || []).find((s) => s._id === wanted) || null;
  }
  if (session) state.projectId = session.projectId;
  if (!state.projects.some((p) => p._id === state.projectId)) {
    state.projectId = state.projects.length ? state.projects[0]._id : null;
  }
  renderProjects();
  await loadSessions(session ? session._id : state.sessionId);
  refreshDrones();
  refreshProviders();
}

function renderProjects() {
  const sel = $('project-select');
  sel.textContent = '';
  for (const p of state.projects) {
    const o = el('option', null, p.name);
    o.value = p._id;
    sel.appendChild(o);
  }
  sel.value = state.projectId || '';
  $('new-project').open = state.projects.length === 0;
}

async function loadSessions(preferred) {
  if (!state.projectId) {
    state.sessions = [];
    renderSessions();
    await selectSession(null);
    return;
  }
  const reply = await request('listSessions', { projectId: state.projectId });
  state.sessions = reply.sessions || [];
  renderSessions();
  let id = preferred && state.sessions.some((s) => s._id === preferred) ? preferred : null;
  if (!id && state.sessions.length) id = state.sessions[state.sessions.length - 1]._id;
  await selectSession(id);
}

function renderSessions() {
  const ul = $('session-list');
  ul.textContent = '';
  for (const s of state.sessions) {
    const li = el('li');
    const b = el('button', 'session' + (s._id === state.sessionId ? ' active' : ''), s.name);
    b.type = 'button';
    b.dataset.sessionId = s._id;
    b.addEventListener('click', () => selectSession(s._id).catch((e) => showError('side-error', e.message)));
    li.appendChild(b);
    if (s._id === state.sessionId) addRenameButton(li, s, renderSessions);
    if (s._id === state.sessionId) addDeleteButton(li, s, forgetSession);
    ul.appendChild(li);
  }
  if (state.draft) {
    const b = el('button', 'session draft active', 'New chat');
    b.type = 'button';
    ul.prepend(b);
  }
  const q = $('session-search').value.trim().toLowerCase();
  if (q) {
    for (const b of ul.querySelectorAll('.session[data-session-id]')) {
      b.parentElement.hidden = !b.textContent.toLowerCase().includes(q);
    }
    if (!ul.querySelector('li:not([hidden]) .session[data-session-id]')) {
      ul.appendChild(el('li', 'hint', 'No chat matches “' + $('session-search').value.trim() + '”.'));
    }
  } else if (!state.sessions.length && !state.draft) {
    ul.appendChild(el('li', 'hint', 'No chats yet: start one.'));
  }
}

async function selectSession(id) {
  const previous = state.watched;
  state.sessionId = id;
  state.draft = !id && !!state.projectId;
  closeDrawer();
  setHashSession(id);
  if (id) localStorage.setItem(SESSION_KEY, id);
  renderSessions();
  sessionChanged();
  if (previous && previous !== id && state.socket && state.socket.connected) {
    state.socket.emit('unwatchSession', { sessionId: previous });
  }
  state.watched = null;
  if (!id) {
    clearTurns();
    showEmptyChat();
    updateComposer();
    return;
  }
  beforeWatch();
  const snapshot = await request('watchSession', { sessionId: id });
  if (state.sessionId !== id) return; // another session was picked meanwhile
  state.watched = id;
  applySnapshot(snapshot);
  refreshAgentTools();
  if (!snapshot.turns || !snapshot.turns.length) showEmptyChat();
}

/** A chat's title from its first prompt: the first line, at most 60 characters. */
export function titleOf(prompt) {
  const line = prompt.trim().split('\n')[0].replace(/\s+/g, ' ');
  if (line.length <= 60) return line || 'New chat';
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(' ');
  return (space > 30 ? cut.slice(0, space) : cut) + '…';
}

/** The watched chat, or the draft created now, titled from its first prompt; returns its id. */
export async function sessionForPrompt(prompt) {
  if (state.watched) return state.watched;
  if (!state.draft || !state.projectId) throw new Error('Create a project first.');
  const reply = await request('createSession', { projectId: state.projectId, name: titleOf(prompt) });
  state.sessions.push(reply.session);
  await selectSession(reply.session._id);
  return reply.session._id;
}

/** A directory name for the project: at most 100 characters (Limits.SLUG, docs/PROTOCOL.md). */
function slugOf(name) {
  const s = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 100)
    .replace(/^-+|-+$/g, '');
  return s || 'project';
}

export function wireSidebar() {
  $('project-select').addEventListener('change', (ev) => {
    state.projectId = ev.target.value || null;
    loadSessions(null).catch((e) => showError('side-error', e.message));
  });
  $('project-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const name = f.elements.name.value.trim();
    const gitUrl = f.elements.gitUrl.value.trim();
    showError('side-error', '');
    try {
      const reply = await request('createProject', { name, slug: slugOf(name), gitUrl });
      state.projects.push(reply.project);
      state.projectId = reply.project._id;
      f.reset();
      renderProjects();
      $('new-project').open = false;
      await loadSessions(null);
      $('prompt').focus();
    } catch (e) {
      showError('side-error', e.message);
    }
  });
  $('new-session').addEventListener('click', async () => {
    showError('side-error', '');
    if (!state.projectId) {
      showError('side-error', 'Create a project first.');
      $('new-project').open = true;
      return;
    }
    try {
      await selectSession(null);
      $('prompt').focus();
    } catch (e) {
      showError('side-error', e.message);
    }
  });
  $('session-search').addEventListener('input', renderSessions);
  wireRenameProject();
  wireDeleteProject(forgetProject);
}

/** A deleted chat leaves the page; if it was shown, the next chat (or the empty state) is. */
export async function forgetSession(id) {
  const i = state.sessions.findIndex((s) => s._id === id);
  if (i < 0) return;
  state.sessions.splice(i, 1);
  if (localStorage.getItem(SESSION_KEY) === id) localStorage.removeItem(SESSION_KEY);
  if (state.sessionId !== id) {
    renderSessions();
    return;
  }
  if (state.watched === id) state.watched = null;
  const next = state.sessions[i] || state.sessions[i - 1];
  await selectSession(next ? next._id : null);
}

/** A deleted project leaves the page; if it was shown, the first project (or none) is. */
export async function forgetProject(id) {
  const i = state.projects.findIndex((p) => p._id === id);
  if (i < 0) return;
  state.projects.splice(i, 1);
  if (state.projectId !== id) {
    renderProjects();
    return;
  }
  const stored = localStorage.getItem(SESSION_KEY);
  if (state.sessions.some((s) => s._id === stored)) localStorage.removeItem(SESSION_KEY);
  state.watched = null;
  state.projectId = state.projects.length ? state.projects[0]._id : null;
  renderProjects();
  await loadSessions(null);
}

/** The server's sessionDeleted: another tab (or this one) deleted the watched chat. */
export function onSessionDeleted(p) {
  const forget = p.projectDeleted ? forgetProject(p.projectId) : forgetSession(p.sessionId);
  forget.catch((e) => showError('side-error', e.message));
}
