// The composer under the turns: sending a prompt (Enter sends, Shift+Enter adds a line),
// cancelling the running turn, and whether Send and Cancel are available.
import { state } from './state.js';
import { $, showError } from './dom.js';
import { request } from './server.js';

function runningTurn() {
  for (const tv of state.turns.values()) if (tv.status === 'processing') return tv;
  return null;
}

/** Shows Cancel while a turn runs; enables Send when connected, watching a chat, and idle. */
export function updateComposer() {
  const running = runningTurn();
  const online = !!(state.socket && state.socket.connected);
  $('cancel').hidden = !running;
  $('send').disabled = !online || !state.watched || !!running;
  $('turn-status').textContent = running ? 'The agent is working…' : '';
}

export function wireComposer() {
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
