// The sidebar's list of drones with their workspace mode and, for each connected one, its
// controls (app/drone-controls.js): fetched after a (re)connect, on droneStatus and
// workspaceMode events, around turns, and every 10 seconds.
import { state } from './state.js';
import { $, el } from './dom.js';
import { request } from './server.js';
import { droneControls } from './drone-controls.js';

export async function refreshDrones() {
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
      if (d.mode && d.status !== 'offline') li.appendChild(el('span', 'drone-mode ' + d.mode, d.mode));
      li.title = d.workspaceDir || '';
      ul.appendChild(li);
      if (d.status !== 'offline') ul.appendChild(droneControls(d, refreshDrones));
    }
    if (!(reply.drones || []).length) {
      ul.appendChild(el('li', 'hint', 'No drone yet: start one with your drone token.'));
    }
  } catch (e) {
    // the next refresh tries again
  }
}

export function pollDrones() {
  setInterval(refreshDrones, 10000);
}
