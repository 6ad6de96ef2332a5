// Reading replies: code blocks highlighted (highlight.js, a global from its browser build) with
// a Copy button, a Copy button for the whole reply (its Markdown), thinking folded once it is
// done (live and after a reload alike), and very long prompts folded. Buttons carry no text of
// their own (their label is CSS), so a block's textContent stays the reply's text.
import { el } from './dom.js';

const FOLD_CHARS = 1500;
const FOLD_LINES = 24;

function copyButton(label, text) {
  const b = el('button', 'copy');
  b.type = 'button';
  b.setAttribute('aria-label', label);
  b.title = label;
  b.addEventListener('click', async (ev) => {
    ev.stopPropagation();
    const ok = await copyText(text());
    b.dataset.copied = ok ? 'yes' : 'no';
    setTimeout(() => { delete b.dataset.copied; }, 1500);
  });
  return b;
}

/** The clipboard API where the page is a secure context, else the older copy command. */
async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch (e) {
    // fall back below
  }
  const t = el('textarea');
  t.value = text;
  t.setAttribute('readonly', '');
  t.style.position = 'fixed';
  t.style.opacity = '0';
  document.body.appendChild(t);
  t.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch (e) {
    ok = false;
  }
  t.remove();
  return ok;
}

/** After a reply's Markdown was rendered into `view.body`: highlight, add the Copy buttons. */
export function decorateReply(view) {
  for (const code of view.body.querySelectorAll('pre > code')) {
    if (window.hljs) {
      window.hljs.configure({ ignoreUnescapedHTML: true });
      const lang = /(?:^|\s)language-(\S+)/.exec(code.className);
      if (lang && !window.hljs.getLanguage(lang[1])) code.className = 'language-plaintext';
      window.hljs.highlightElement(code);
    }
    const pre = code.parentElement;
    pre.classList.add('has-copy');
    pre.appendChild(copyButton('Copy code', () => code.textContent));
  }
  view.body.appendChild(copyButton('Copy reply', () => view.content));
}

/** Thinking is open while it streams, folded once anything follows it or the turn ends. */
export function settleThinking(tv) {
  tv.blocks.forEach((v, i) => {
    if (v.mode !== 'thinking' || v.el.dataset.touched) return;
    v.el.open = i === tv.openIdx && tv.status === 'processing';
  });
}

/** Marks a thinking block the person opened or closed: it stays as they left it. */
export function wireThinking(details, key) {
  details.querySelector('summary').addEventListener('click', () => {
    details.dataset.touched = 'yes';
  });
  // what the person chose is kept for the next load of the page (the click toggles after it)
  details.addEventListener('toggle', () => {
    if (details.dataset.touched) saveFold(key, details.open);
  });
}

const FOLDS_KEY = 'gadget.folds';
/** The most thinking blocks whose folding is remembered; the oldest go first. */
const MAX_FOLDS = 500;

function folds() {
  try {
    return JSON.parse(localStorage.getItem(FOLDS_KEY)) || {};
  } catch (e) {
    return {};
  }
}

/** Whether the person left the thinking block `key` open (true), folded (false), or null. */
export function savedFold(key) {
  const f = folds();
  return Object.prototype.hasOwnProperty.call(f, key) ? f[key] === true : null;
}

function saveFold(key, open) {
  const f = folds();
  delete f[key];
  f[key] = open;
  const keys = Object.keys(f);
  for (let i = 0; i < keys.length - MAX_FOLDS; i++) delete f[keys[i]];
  try {
    localStorage.setItem(FOLDS_KEY, JSON.stringify(f));
  } catch (e) {
    // storage full or refused: the choice lasts for this page only
  }
}

/** Folds a long prompt to a few lines, with a button to show it all (and fold it again). */
export function foldPrompt(textEl, text) {
  const lines = text.split('\n').length;
  if (text.length <= FOLD_CHARS && lines <= FOLD_LINES) return;
  textEl.classList.add('folded');
  const b = el('button', 'link unfold');
  b.type = 'button';
  const label = () => (textEl.classList.contains('folded')
    ? 'Show all (' + lines.toLocaleString('en-US') + ' lines, '
      + text.length.toLocaleString('en-US') + ' characters)'
    : 'Show less');
  b.textContent = label();
  b.addEventListener('click', () => {
    textEl.classList.toggle('folded');
    b.textContent = label();
  });
  textEl.after(b);
}
