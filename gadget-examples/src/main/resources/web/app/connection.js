// The Socket.IO connection (docs/PROTOCOL.md): connect with the page token, show its state,
// reload the sidebar and the watched chat after every (re)connect (socket.io-client reconnects
// by itself), and route the server's events to the turns and the drone list.
import { state } from './state.js';
import { $, showError } from './dom.js';
import { signOut } from './signin.js';
import { refreshAll, onSessionDeleted } from './sidebar.js';
import { onResumed, onStream, onSuperseded, onTurnStarted } from './turns.js';
import { updateComposer } from './composer.js';
import { refreshDrones } from './drones.js';
import { onTurnChanges } from './diff.js';
import { addBlock } from './render.js';
import { refreshAgentTools } from './agent-tools.js';
import { onTurnRecovered, onTurnStats } from './turn-live.js';
import { registerApprovals } from './approvals.js';

const TOKEN_ERRORS = ['missing token', 'invalid token', 'this is a drone token'];

export function connect() {
  if (state.socket) state.socket.disconnect();
  // Socket.IO is on the page's own port (and host): one forwarded port is enough.
  const url = location.origin;
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
  registerApprovals(socket);
  socket.on('turnStarted', (p) => onTurnStarted(p.turn));
  socket.on('droneStatus', () => refreshDrones());
  socket.on('workspaceMode', () => refreshDrones());
  socket.on('turnRecovered', onTurnRecovered);
  socket.on('turnStats', onTurnStats);
  socket.on('blocksSuperseded', (p) => onSuperseded(p));
  socket.on('turnResumed', (p) => onResumed(p));
  socket.on('sessionDeleted', (p) => onSessionDeleted(p));
  socket.on('turnChanges', (p) => onTurnChanges(p, onStream, addBlock));
  socket.on('workOrderComplete', () => refreshAgentTools());
  for (const name of ['thinking', 'response', 'toolStarted', 'toolOutput', 'toolCall',
    'compaction', 'workOrderComplete']) {
    socket.on(name, (p) => onStream(name, p));
  }
}

function setConn(s, text) {
  const c = $('conn');
  c.dataset.state = s;
  c.textContent = text;
  updateComposer();
}
