// How full a turn's context was, and the context compactions (CONTEXT.md, "Context budget and
// compaction"): a compaction block is one folded line over what was summarized and the summary
// (as plain text); a finished turn's footer gets a meter of its last request's context against
// the budget.
import { el } from './dom.js';

/** The element of a compaction block. */
export function compactionElement(c) {
  const d = el('details', 'block compaction');
  const s = el('summary');
  s.appendChild(el('span', 'compaction-title', 'Context compacted'));
  s.appendChild(el('span', 'compaction-hint', (c.summarized || '') + ' · '
    + tokens(c.tokensBefore) + ' → ' + tokens(c.tokensAfter) + ' tokens'));
  d.appendChild(s);
  const body = el('div', 'compaction-body');
  body.appendChild(el('div', 'label', 'Summary the agent goes on from'));
  body.appendChild(el('pre', 'compaction-summary', c.summary || ''));
  d.appendChild(body);
  return d;
}

/** A meter of the context sent against the budget, or null when the stats do not say. */
export function contextMeter(stats) {
  if (!stats || !stats.contextBudget || !stats.contextTokens) return null;
  const share = Math.min(1, stats.contextTokens / stats.contextBudget);
  const pct = Math.round(share * 100);
  const m = el('span', 'context-meter');
  m.title = 'Context of the last model call: ' + tokens(stats.contextTokens) + ' of '
    + tokens(stats.contextBudget) + ' tokens (estimated)';
  const bar = el('span', 'context-bar');
  const fill = el('span', 'context-fill');
  fill.style.width = pct + '%';
  if (share >= 0.9) fill.classList.add('full');
  bar.appendChild(fill);
  m.appendChild(bar);
  m.appendChild(el('span', 'context-text', 'context ' + pct + '%'));
  return m;
}

function tokens(n) {
  return typeof n === 'number' ? n.toLocaleString('en') : '?';
}
