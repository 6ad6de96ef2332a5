// The tab's title says what the agent is doing, so a person in another tab sees when a turn
// has ended: "Working… · Gadget" while it runs, then "✓ Finished · Gadget" (or the turn's
// other ending) until they come back to the tab and type, click or switch chats.
import { state } from './state.js';

const BASE = 'Gadget';
const ENDINGS = {
  finished: '✓ Finished',
  error: '✗ Error',
  cancelled: 'Cancelled',
  interrupted: '✗ Interrupted',
};
let runningId = null;

/** Called with the running turn's view (or null) whenever the composer is updated. */
export function updateTitle(running) {
  if (running) {
    runningId = running.id;
    document.title = 'Working… · ' + BASE;
    return;
  }
  if (!runningId) return;
  const ended = state.turns.get(runningId);
  runningId = null;
  const word = ended && ENDINGS[ended.status];
  document.title = word ? word + ' · ' + BASE : BASE;
}

/** Back to the plain title once the person is looking at the page again. */
export function wireTitle() {
  const reset = () => { if (!runningId) document.title = BASE; };
  for (const ev of ['keydown', 'pointerdown']) document.addEventListener(ev, reset);
}
