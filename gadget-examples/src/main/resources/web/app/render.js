// How a turn's blocks look: thinking (folded Markdown, its folding remembered across reloads),
// responding (Markdown through marked, then
// DOMPurify: LLM output is untrusted), tool (app/tools.js: a one-line summary over its parameters
// and result, its live output while it runs),
// and the turn's status footer. Text changes are batched per animation frame and rendered in
// place, into the block's existing element; the block being written shows a cursor.
import { state } from './state.js';
import { el } from './dom.js';
import { decorateReply, savedFold, wireThinking } from './reading.js';
import { toolElement } from './tools.js';
import { isPlan, planElement } from './plan.js';
import { diffElement, markUndone } from './diff.js';
import { compactionElement, contextMeter } from './context.js';
import { statsParts } from './stats.js';
import { turnCost } from './providers.js';

let sanitizerReady = false;

/**
 * Renames on…= attributes in the reply's raw HTML (marked's html tokens only, never its text or
 * code) so that parsing it, which DOMPurify must do, does not make Chromium report each handler
 * as a CSP violation in the console. Not a defence: DOMPurify removes handlers either way.
 */
function defuseHandlers(token) {
  if (token.type === 'html' && typeof token.text === 'string') {
    token.text = token.text.replace(/([\s"'/])on([a-z]+\s*=)/gi, '$1gadget-defused-on$2');
  }
}

/** Markdown to safe HTML: marked, then DOMPurify (no scripts, handlers, javascript: URLs). */
function renderMarkdown(src) {
  if (!sanitizerReady) {
    marked.use({ gfm: true, breaks: true, walkTokens: defuseHandlers });
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
  // a new block means the one before it is finished: its streaming cursor goes
  for (const o of tv.blocks) o.el.classList.remove('streaming');
  if (b.mode === 'thinking') {
    const d = el('details', 'block thinking');
    const key = tv.id + '/' + b.seq;
    const saved = streaming ? null : savedFold(key);
    d.open = saved === null ? streaming : saved;
    if (saved !== null) d.dataset.touched = 'yes';
    d.appendChild(el('summary', null, 'Thinking'));
    wireThinking(d, key);
    view.body = el('div', 'thinking-text markdown');
    d.appendChild(view.body);
    view.el = d;
  } else if (b.mode === 'responding') {
    view.el = el('div', 'block responding markdown');
    view.body = view.el;
  } else if (b.mode === 'diff') {
    view.el = diffElement(tv, b.content);
    if (b.content.revertOf) markUndone(tv);
  } else if (b.mode === 'compaction') {
    view.el = compactionElement(b.content);
  } else {
    view.el = isPlan(b.content) ? planElement(tv, b.content) : toolElement(b.content);
  }
  view.el.dataset.seq = String(b.seq);
  view.el.dataset.mode = b.mode;
  if (streaming && (b.mode === 'thinking' || b.mode === 'responding')) {
    view.el.classList.add('streaming');
  }
  if (b.superseded) supersede(view);
  tv.blocks.push(view);
  tv.blocksEl.appendChild(view.el);
  if (b.mode === 'thinking' || b.mode === 'responding') markDirty(view);
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
    if (v.mode === 'thinking') v.body.innerHTML = renderMarkdown(v.content);
    else if (v.mode === 'responding') {
      v.body.innerHTML = renderMarkdown(v.content);
      decorateReply(v);
    }
  }
  state.dirty.clear();
}

/** The turn's footer: a spinner while it runs, then its status, error and stats. */
export function renderStatus(tv) {
  const f = tv.footer;
  f.textContent = '';
  f.dataset.status = tv.status;
  tv.el.dataset.status = tv.status;
  const parts = statsParts(tv.stats, turnCost(tv.model, tv.stats));
  if (tv.status !== 'processing') {
    for (const v of tv.blocks) v.el.classList.remove('streaming');
  }
  if (tv.status === 'processing') {
    f.appendChild(el('span', 'spinner'));
    f.appendChild(el('span', null, 'working…'));
    if (tv.notice) f.appendChild(el('span', 'status-notice', tv.notice));
    if (parts.length) f.appendChild(el('span', 'status-stats', parts.join(' · ')));
    return;
  }
  f.appendChild(el('span', 'status-label', tv.status));
  if (tv.error) f.appendChild(el('span', 'status-error', tv.error));
  if (parts.length) f.appendChild(el('span', 'status-stats', parts.join(' · ')));
  const meter = contextMeter(tv.stats);
  if (meter) f.appendChild(meter);
}
