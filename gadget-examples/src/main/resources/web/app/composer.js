// The composer under the turns: sending a prompt (Enter sends, Shift+Enter adds a line),
// cancelling the running turn, and whether Send and Cancel are available.
import { state } from './state.js';
import { $, showError } from './dom.js';
import { request } from './server.js';
import { updateTitle } from './title.js';

/** Where a prompt goes: set by wireComposer. */
let sessionSource = null;

/**
 * The longest prompt the server takes, in UTF-16 code units as `length` counts them: Java's
 * Limits.PROMPT (docs/PROTOCOL.md, "Limits"). A longer one is not sent, so that it can never
 * meet the transport's frame limit and cost the page its connection.
 */
export const MAX_PROMPT_CHARS = 100000;
let limitShown = false;

/** The message for a prompt over the limit, or '' when it fits. */
function overLimit(text) {
  if (text.length <= MAX_PROMPT_CHARS) return '';
  const n = (x) => x.toLocaleString('en-US');
  return 'This prompt is ' + n(text.length) + ' characters long; the limit is '
    + n(MAX_PROMPT_CHARS) + '. Shorten it, or put the long text in a file of the project and '
    + 'ask about that file.';
}

/** Shows or clears the limit's message as the prompt changes; never clears another error. */
function checkLength() {
  const message = overLimit($('prompt').value.trim());
  if (message) showError('composer-error', message);
  else if (limitShown) showError('composer-error', '');
  limitShown = !!message;
  return !message;
}

function runningTurn() {
  for (const tv of state.turns.values()) if (tv.status === 'processing') return tv;
  return null;
}

/** Shows Cancel while a turn runs; enables Send when connected, watching a chat, and idle. */
export function updateComposer() {
  const running = runningTurn();
  const online = !!(state.socket && state.socket.connected);
  $('cancel').hidden = !running;
  $('send').disabled = !online || !(state.watched || state.draft) || !!running;
  $('turn-status').textContent = running ? 'The agent is working…' : '';
  updateTitle(running);
}

/**
 * Wires the prompt box; `sessionForPrompt(text)` gives the chat a prompt goes to (the
 * sidebar's: the watched one, or a new one in a draft). Given, not imported, so that the
 * composer, the sidebar and the turns import no one in a circle.
 */
export function wireComposer(sessionForPrompt) {
  sessionSource = sessionForPrompt;
  $('composer').addEventListener('submit', (ev) => {
    ev.preventDefault();
    send();
  });
  $('prompt').addEventListener('input', checkLength);
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
  if (text && runningTurn()) {
    // Kept in the box: it can be sent when the turn ends (or after Cancel).
    showError('composer-error', 'The agent is still working on the last prompt: your text stays '
      + 'here; send it when the turn ends, or Cancel the turn.');
    return;
  }
  if (!text || $('send').disabled || !checkLength()) return;
  showError('composer-error', '');
  $('send').disabled = true;
  try {
    const sessionId = await sessionSource(text);
    await request('submitPrompt', { sessionId, prompt: text });
    // the turn may have started (and the person typed on) before the ack came: clear only
    // what was sent
    if ($('prompt').value.trim() === text) $('prompt').value = '';
  } catch (e) {
    showError('composer-error', e.message);
  } finally {
    updateComposer();
  }
}
