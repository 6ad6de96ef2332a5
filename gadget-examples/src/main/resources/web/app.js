// The Gadget web chat. Plain browser JavaScript, no build step: socket.io-client for the live
// protocol (docs/PROTOCOL.md), marked for Markdown, DOMPurify to sanitize it (LLM output is
// untrusted), and the REST API for sign-in and history.
//
// Rendering follows seed 003: a turn is an ordered list of blocks (thinking, responding, tool);
// stream events append to the open block *in place* (the same DOM element is updated, never
// re-created), a change of mode or a tool call starts a new block. Events carry a per-turn seq:
// an event with seq <= the turn's lastSeq is already reflected and is ignored, so the
// watchSession snapshot plus the live tail shows every token exactly once, also after a
// reconnect.
(function () {
  'use strict';

  const TOKEN_KEY = 'gadget.token';
  const SESSION_KEY = 'gadget.session';
  const ACK_TIMEOUT = 15000;
  const TOKEN_ERRORS = ['missing token', 'invalid token', 'this is a drone token'];

  const $ = (id) => document.getElementById(id);
  const state = {
    token: null,
    socket: null,
    config: null,
    user: null,
    projects: [],
    sessions: [],
    projectId: null,
    sessionId: null,
    watched: null,
    turns: new Map(), // turnId -> turn view, for the watched session
    dirty: new Set(), // blocks waiting to be rendered
    frame: 0,
  };

  // ------------------------------------------------------------------ Markdown

  let sanitizerReady = false;

  /** Markdown to safe HTML: marked, then DOMPurify (no scripts, handlers, javascript: URLs). */
  function renderMarkdown(src) {
    if (!sanitizerReady) {
      marked.use({ gfm: true, breaks: true });
      DOMPurify.addHook('afterSanitizeAttributes', (node) => {
        if (node.tagName === 'A' && node.hasAttribute('href')) {
          node.setAttribute('target', '_blank');
          node.setAttribute('rel', 'noopener noreferrer');
        }
      });
      sanitizerReady = true;
    }
    const html = marked.parse(src, { async: false });
    return DOMPurify.sanitize(html, {
      USE_PROFILES: { html: true },
      FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe'],
      // No id or name from a reply: an element named like one of the page's controls would
      // shadow it (DOM clobbering). SANITIZE_NAMED_PROPS prefixes any that remain.
      FORBID_ATTR: ['style', 'id', 'name'],
      SANITIZE_NAMED_PROPS: true,
    });
  }

  // ------------------------------------------------------------------ small helpers

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function showError(id, message) {
    $(id).textContent = message || '';
  }

  async function api(path) {
    const r = await fetch(path, {
      headers: state.token ? { Authorization: 'Bearer ' + state.token } : {},
      cache: 'no-store',
    });
    let body = null;
    try {
      body = await r.json();
    } catch (e) {
      body = null;
    }
    if (!r.ok) {
      const err = new Error((body && body.error) || 'HTTP ' + r.status);
      err.status = r.status;
      throw err;
    }
    return body;
  }

  /** Emits a page → server event and resolves with its ack (rejects on timeout/disconnect). */
  function request(event, payload) {
    return new Promise((resolve, reject) => {
      state.socket.timeout(ACK_TIMEOUT).emit(event, payload, (err, reply) => {
        if (err) reject(new Error('the server did not answer (' + event + ')'));
        else if (reply && reply.error) reject(new Error(reply.error));
        else resolve(reply || {});
      });
    });
  }

  function slugOf(name) {
    const s = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    return s || 'project';
  }

  function hashParams() {
    return new URLSearchParams(location.hash.replace(/^#/, ''));
  }

  function setHashSession(sessionId) {
    const h = sessionId ? '#s=' + encodeURIComponent(sessionId) : '';
    if (location.hash !== h) history.replaceState(null, '', location.pathname + location.search + h);
  }

  // ------------------------------------------------------------------ sign-in

  async function boot() {
    const params = hashParams();
    const fromUrl = params.get('token');
    if (fromUrl) {
      const current = localStorage.getItem(TOKEN_KEY);
      // A link must not silently switch a signed-in person to another account.
      if (!current || current === fromUrl
          || window.confirm('This link signs you in with another token. Switch accounts?')) {
        localStorage.setItem(TOKEN_KEY, fromUrl);
      }
      params.delete('token');
      const rest = params.toString();
      history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
    }
    state.token = localStorage.getItem(TOKEN_KEY);
    $('signin-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const t = $('token-input').value.trim();
      if (!t) return;
      localStorage.setItem(TOKEN_KEY, t);
      state.token = t;
      $('token-input').value = '';
      start();
    });
    $('signout').addEventListener('click', () => signOut(''));
    wireUi();
    if (state.token) start();
    else showSignIn('');
  }

  function showSignIn(message) {
    $('app').hidden = true;
    $('signin').hidden = false;
    showError('signin-error', message);
    $('token-input').focus();
  }

  function signOut(message) {
    localStorage.removeItem(TOKEN_KEY);
    state.token = null;
    if (state.socket) {
      state.socket.disconnect();
      state.socket = null;
    }
    showSignIn(message);
  }

  async function start() {
    try {
      const me = await api('/api/me');
      state.user = me.user;
      state.config = await api('/api/config');
    } catch (e) {
      if (e.status === 401) signOut('That token was not accepted: ' + e.message + '.');
      else showSignIn('Cannot reach the server: ' + e.message);
      return;
    }
    $('signin').hidden = true;
    $('app').hidden = false;
    $('whoami').textContent = state.user.username;
    const llm = state.config.llm || {};
    $('llm').textContent = llm.sdk ? llm.sdk + ' · ' + llm.model : '';
    $('scripted-banner').hidden = !state.config.scripted;
    connect();
  }

  // ------------------------------------------------------------------ connection

  function connect() {
    if (state.socket) state.socket.disconnect();
    const url = location.protocol + '//' + location.hostname + ':' + state.config.socketPort;
    const socket = io(url, {
      path: state.config.socketPath || '/socket.io/',
      transports: ['websocket'],
      auth: (cb) => cb({ token: state.token }),
      reconnectionDelayMax: 5000,
    });
    state.socket = socket;
    setConn('connecting', 'connecting…');
    socket.on('connect', () => {
      setConn('connected', 'connected');
      refreshAll().catch((e) => showError('side-error', e.message));
    });
    socket.on('disconnect', (reason) => {
      state.watched = null;
      setConn('offline', reason === 'io client disconnect' ? 'signed out' : 'reconnecting…');
    });
    socket.on('connect_error', (err) => {
      const message = (err && err.message) || 'connection failed';
      if (socket.active) {
        setConn('offline', 'reconnecting…');
      } else if (TOKEN_ERRORS.some((m) => message.startsWith(m))) {
        signOut('The server refused the token: ' + message + '.');
      } else {
        setConn('offline', 'refused: ' + message + '; retrying');
        setTimeout(() => { if (state.socket === socket) socket.connect(); }, 3000);
      }
    });
    socket.on('turnStarted', (p) => onTurnStarted(p.turn));
    socket.on('droneStatus', () => refreshDrones());
    for (const name of ['thinking', 'response', 'toolCall', 'workOrderComplete']) {
      socket.on(name, (p) => onStream(name, p));
    }
  }

  function setConn(s, text) {
    const c = $('conn');
    c.dataset.state = s;
    c.textContent = text;
    updateComposer();
  }

  /** After every (re)connect: projects, sessions, drones, and watch the session again. */
  async function refreshAll() {
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
  }

  // ------------------------------------------------------------------ projects, sessions, drones

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
      ul.appendChild(li);
    }
    if (!state.sessions.length) ul.appendChild(el('li', 'hint', 'No chats yet: start one.'));
  }

  async function refreshDrones() {
    if (!state.socket || !state.socket.connected) return;
    try {
      const reply = await request('listDrones', {});
      const ul = $('drone-list');
      ul.textContent = '';
      for (const d of reply.drones || []) {
        const li = el('li', 'drone');
        li.appendChild(el('span', 'dot ' + d.status));
        li.appendChild(el('span', 'drone-host', d.hostname));
        li.appendChild(el('span', 'drone-status', d.status));
        li.title = d.workspaceDir || '';
        ul.appendChild(li);
      }
      if (!(reply.drones || []).length) {
        ul.appendChild(el('li', 'hint', 'No drone yet: start one with your drone token.'));
      }
    } catch (e) {
      // the next refresh tries again
    }
  }

  async function selectSession(id) {
    const previous = state.watched;
    state.sessionId = id;
    setHashSession(id);
    if (id) localStorage.setItem(SESSION_KEY, id);
    renderSessions();
    if (previous && previous !== id && state.socket && state.socket.connected) {
      state.socket.emit('unwatchSession', { sessionId: previous });
    }
    state.watched = null;
    if (!id) {
      clearTurns();
      $('turns').appendChild(el('p', 'hint', state.projectId
        ? 'Start a new chat to talk to the agent.' : 'Create a project to begin.'));
      updateComposer();
      return;
    }
    const snapshot = await request('watchSession', { sessionId: id });
    if (state.sessionId !== id) return; // another session was picked meanwhile
    state.watched = id;
    applySnapshot(snapshot);
  }

  // ------------------------------------------------------------------ turns and blocks

  function clearTurns() {
    state.turns = new Map();
    state.dirty.clear();
    $('turns').textContent = '';
  }

  /**
   * Renders a session snapshot: stored turns with their blocks; for a running turn, its
   * lastSeq and the open block not stored yet. Stored blocks at or after the open block's seq
   * were flushed after the snapshot was taken: the live events after lastSeq rebuild them.
   */
  function applySnapshot(snap) {
    clearTurns();
    const live = new Map((snap.live || []).map((l) => [l.turnId, l]));
    for (const t of snap.turns || []) {
      const tv = addTurn(t);
      const l = live.get(t._id);
      let blocks = t.blocks || [];
      if (l) {
        tv.lastSeq = l.lastSeq;
        tv.status = 'processing';
        if (l.openBlock) blocks = blocks.filter((b) => b.seq < l.openBlock.seq);
        else if (l.lastSeq < 0) blocks = [];
      }
      for (const b of blocks) addBlock(tv, b, false);
      if (l && l.openBlock) {
        tv.openIdx = tv.blocks.length;
        addBlock(tv, l.openBlock, true);
      }
      renderStatus(tv);
    }
    flush();
    scrollToEnd(true);
    updateComposer();
  }

  function addTurn(t) {
    const section = el('section', 'turn');
    section.dataset.turnId = t._id;
    const prompt = el('div', 'prompt');
    prompt.appendChild(el('div', 'prompt-text', t.prompt));
    section.appendChild(prompt);
    const blocksEl = el('div', 'blocks');
    section.appendChild(blocksEl);
    const footer = el('div', 'turn-footer');
    section.appendChild(footer);
    $('turns').querySelectorAll(':scope > .hint').forEach((h) => h.remove());
    $('turns').appendChild(section);
    const tv = {
      id: t._id, seq: t.seq, status: t.status, error: t.error || null, stats: t.stats || null,
      lastSeq: -1, openIdx: -1, blocks: [], el: section, blocksEl, footer,
    };
    state.turns.set(t._id, tv);
    return tv;
  }

  function onTurnStarted(turn) {
    if (!turn || turn.sessionId !== state.watched || state.turns.has(turn._id)) return;
    const tv = addTurn(turn);
    renderStatus(tv);
    scrollToEnd(true);
    updateComposer();
    refreshDrones();
  }

  function nextBlockSeq(tv) {
    return tv.blocks.length ? tv.blocks[tv.blocks.length - 1].seq + 1 : 0;
  }

  function onStream(name, p) {
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
    } else if (name === 'toolCall') {
      tv.openIdx = -1;
      addBlock(tv, { seq: nextBlockSeq(tv), mode: 'tool', content: p.call }, false);
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
    scrollToEnd(false);
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
    if (b.mode === 'tool') return b.content.callId === v.content.callId && b.content.response === v.content.response;
    return b.content === v.content;
  }

  function addBlock(tv, b, streaming) {
    const view = { seq: b.seq, mode: b.mode, content: b.content, el: null, body: null };
    if (b.mode === 'thinking') {
      const d = el('details', 'block thinking');
      d.open = streaming;
      d.appendChild(el('summary', null, 'Thinking'));
      view.body = el('div', 'thinking-text');
      d.appendChild(view.body);
      view.el = d;
    } else if (b.mode === 'responding') {
      view.el = el('div', 'block responding markdown');
      view.body = view.el;
    } else {
      view.el = toolElement(b.content);
    }
    view.el.dataset.seq = String(b.seq);
    view.el.dataset.mode = b.mode;
    tv.blocks.push(view);
    tv.blocksEl.appendChild(view.el);
    if (b.mode !== 'tool') markDirty(view);
  }

  function toolElement(call) {
    const d = el('details', 'block tool');
    const s = el('summary');
    const ok = call.response !== undefined && call.response !== null;
    s.appendChild(el('span', 'dot ' + (ok ? 'done' : 'running')));
    s.appendChild(el('span', 'tool-name', call.name));
    s.appendChild(el('span', 'tool-hint', hintOf(call.parameters)));
    s.appendChild(el('span', 'tool-status', ok ? 'done' : 'running…'));
    d.appendChild(s);
    const body = el('div', 'tool-body');
    body.appendChild(el('div', 'label', 'Parameters'));
    body.appendChild(el('pre', 'tool-params', pretty(call.parameters)));
    body.appendChild(el('div', 'label', 'Result'));
    body.appendChild(el('pre', 'tool-result', ok ? call.response : '(not run yet)'));
    d.appendChild(body);
    return d;
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

  function markDirty(view) {
    state.dirty.add(view);
    if (!state.frame) {
      state.frame = document.visibilityState === 'visible'
        ? requestAnimationFrame(flush) : setTimeout(flush, 100);
    }
  }

  /** Renders every block that changed since the last frame, in place. */
  function flush() {
    if (state.frame) {
      cancelAnimationFrame(state.frame);
      clearTimeout(state.frame);
      state.frame = 0;
    }
    for (const v of state.dirty) {
      if (v.mode === 'thinking') v.body.textContent = v.content;
      else if (v.mode === 'responding') v.body.innerHTML = renderMarkdown(v.content);
    }
    state.dirty.clear();
  }

  function renderStatus(tv) {
    const f = tv.footer;
    f.textContent = '';
    f.dataset.status = tv.status;
    tv.el.dataset.status = tv.status;
    if (tv.status === 'processing') {
      f.appendChild(el('span', 'spinner'));
      f.appendChild(el('span', null, 'working…'));
      return;
    }
    f.appendChild(el('span', 'status-label', tv.status));
    if (tv.error) f.appendChild(el('span', 'status-error', tv.error));
    const s = tv.stats;
    if (s && (s.durationMs || s.toolCallCount || s.completionTokens)) {
      const parts = [];
      if (s.toolCallCount) parts.push(s.toolCallCount + ' tool call' + (s.toolCallCount === 1 ? '' : 's'));
      if (s.completionTokens) parts.push(s.completionTokens + ' tokens');
      if (s.durationMs) parts.push((s.durationMs / 1000).toFixed(1) + ' s');
      f.appendChild(el('span', 'status-stats', parts.join(' · ')));
    }
  }

  function runningTurn() {
    for (const tv of state.turns.values()) if (tv.status === 'processing') return tv;
    return null;
  }

  function updateComposer() {
    const running = runningTurn();
    const online = !!(state.socket && state.socket.connected);
    $('cancel').hidden = !running;
    $('send').disabled = !online || !state.watched || !!running;
    $('turn-status').textContent = running ? 'The agent is working…' : '';
  }

  function scrollToEnd(force) {
    const t = $('turns');
    const near = t.scrollHeight - t.scrollTop - t.clientHeight < 120;
    if (force || near) t.scrollTop = t.scrollHeight;
  }

  // ------------------------------------------------------------------ UI wiring

  function wireUi() {
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
        await loadSessions(null);
      } catch (e) {
        showError('side-error', e.message);
      }
    });
    $('new-session').addEventListener('click', async () => {
      showError('side-error', '');
      if (!state.projectId) {
        showError('side-error', 'Create a project first.');
        return;
      }
      try {
        const reply = await request('createSession', {
          projectId: state.projectId, name: 'Chat ' + (state.sessions.length + 1),
        });
        state.sessions.push(reply.session);
        await selectSession(reply.session._id);
      } catch (e) {
        showError('side-error', e.message);
      }
    });
    $('composer').addEventListener('submit', (ev) => {
      ev.preventDefault();
      send();
    });
    $('prompt').addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        send();
      }
    });
    $('cancel').addEventListener('click', async () => {
      const running = runningTurn();
      if (!running) return;
      $('cancel').disabled = true;
      try {
        await request('cancelTurn', { turnId: running.id });
        $('turn-status').textContent = 'Cancelling…';
      } catch (e) {
        showError('composer-error', e.message);
      } finally {
        $('cancel').disabled = false;
      }
    });
    setInterval(refreshDrones, 10000);
  }

  async function send() {
    const text = $('prompt').value.trim();
    if (!text || $('send').disabled) return;
    showError('composer-error', '');
    $('send').disabled = true;
    try {
      await request('submitPrompt', { sessionId: state.watched, prompt: text });
      $('prompt').value = '';
    } catch (e) {
      showError('composer-error', e.message);
    } finally {
      updateComposer();
    }
  }

  // For the browser tests and the curious: what the page shows, and a way to drop the
  // connection as a network failure would (socket.io-client then reconnects by itself).
  window.gadgetPage = {
    dropConnection() {
      if (state.socket && state.socket.io.engine) state.socket.io.engine.close();
    },
    blocks() {
      return Array.from(document.querySelectorAll('#turns .block')).map((b) => ({
        turnId: b.closest('.turn').dataset.turnId,
        seq: Number(b.dataset.seq),
        mode: b.dataset.mode,
        text: b.textContent,
      }));
    },
  };

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
