// A running turn's news beside its stream (docs/PROTOCOL.md): its stats as they grow
// (turnStats) and a drone crash the server retries it after (turnRecovered).
import { state } from './state.js';
import { renderStatus } from './render.js';

export function onTurnStats(p) {
  const tv = state.turns.get(p.turnId);
  if (!tv || tv.status !== 'processing' || !p.stats) return;
  tv.stats = Object.assign({}, p.stats, { crashRetries: (tv.stats && tv.stats.crashRetries) || 0 });
  renderStatus(tv);
}

export function onTurnRecovered(p) {
  const tv = state.turns.get(p.turnId);
  if (!tv) return;
  tv.notice = p.message;
  tv.stats = Object.assign({}, tv.stats || {}, { crashRetries: p.crashRetries });
  renderStatus(tv);
}
