// How a turn's blocks look: thinking (folded text), responding (Markdown through marked, then
// DOMPurify: LLM output is untrusted), tool (a one-line summary over its parameters and result),
// and the turn's status footer. Text changes are batched per animation frame and rendered in
// place, into the block's existing element.
import { state } from './state.js';
import { el } from './dom.js';
import { approvalNote } from './approvals.js';

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

/** Appends a block's element to its turn; its text is rendered with the next flush. */
export function addBlock(tv, b, streaming) {
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
  if (b.superseded) supersede(view);
  tv.blocks.push(view);
  tv.blocksEl.appendChild(view.el);
  if (b.mode !== 'tool') markDirty(view);
}

/**
 * Shows a block as superseded: a model round that a drone's crash interrupted and that was done
 * again. It stays (the user saw it), dimmed, with a note; a thinking block folds.
 */
export function supersede(view) {
  if (view.superseded) return;
  view.superseded = true;
  view.el.classList.add('superseded');
  view.el.title = 'Interrupted by a drone crash; the model answered again below.';
  if (view.mode === 'thinking') view.el.open = false;
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
  const note = approvalNote(call);
  if (note) {
    body.appendChild(note);
    d.dataset.approval = call.approval.decision;
  }
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

/** Schedules a block's text to be rendered with the next frame. */
export function markDirty(view) {
  state.dirty.add(view);
  if (!state.frame) {
    state.frame = document.visibilityState === 'visible'
      ? requestAnimationFrame(flush) : setTimeout(flush, 100);
  }
}

/** Renders every block that changed since the last frame, in place. */
export function flush() {
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

/** The turn's footer: a spinner while it runs, then its status, error and stats. */
export function renderStatus(tv) {
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
