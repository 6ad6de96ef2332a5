// A turn's diff block (docs/PROTOCOL-CHANGES.md, "The agent's changes"): the files it changed, each a
// collapsible section whose unified diff shows added lines green and removed lines red, and the
// actions that apply: Undo (this turn's changes only), Commit (the chat's changes, on a branch)
// and Push (that branch). All text goes in with textContent: file names and patches are as
// untrusted as any tool output. An undo's record (a diff block with revertOf) has no actions.
import { state } from './state.js';
import { el } from './dom.js';
import { request } from './server.js';

/** The element of a diff block of turn view {@code tv}. */
export function diffElement(tv, diff) {
  const box = el('div', 'block diff');
  const files = diff.files || [];
  const added = files.reduce((n, f) => n + (f.added || 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed || 0), 0);
  const head = el('div', 'diff-head');
  head.appendChild(el('span', 'diff-title', diff.revertOf
    ? 'Undone: this turn\'s changes were reverted'
    : 'Changed ' + files.length + ' file' + (files.length === 1 ? '' : 's')));
  head.appendChild(el('span', 'diff-add', '+' + added));
  head.appendChild(el('span', 'diff-del', '−' + removed));
  box.appendChild(head);
  const sections = splitPatch(diff.patch || '');
  for (const f of files) box.appendChild(fileElement(f, sections.get(f.path)));
  if (diff.note) box.appendChild(el('div', 'diff-note', diff.note));
  if (!diff.revertOf) box.appendChild(actions(tv));
  return box;
}

function fileElement(f, lines) {
  const d = el('details', 'diff-file');
  d.dataset.path = f.path;
  d.dataset.change = f.change;
  d.open = true;
  const s = el('summary');
  s.appendChild(el('span', 'diff-change ' + f.change, f.change));
  s.appendChild(el('span', 'diff-path', f.path));
  if (f.binary) s.appendChild(el('span', 'diff-binary', 'binary'));
  else {
    s.appendChild(el('span', 'diff-add', '+' + f.added));
    s.appendChild(el('span', 'diff-del', '−' + f.removed));
  }
  d.appendChild(s);
  const pre = el('pre', 'diff-lines');
  if (f.binary) pre.appendChild(el('span', 'meta', 'Binary file: its content is not shown.'));
  else if (!lines) pre.appendChild(el('span', 'meta', '(cut: see the note below)'));
  else {
    for (const line of lines) {
      const cls = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add'
        : line.startsWith('-') ? 'del' : 'ctx';
      pre.appendChild(el('span', 'line ' + cls, line + '\n'));
    }
  }
  d.appendChild(pre);
  return d;
}

/** The patch's lines per file (from its first hunk on), keyed by the file's path. */
function splitPatch(patch) {
  const out = new Map();
  let path = null;
  let lines = null;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      path = null;
      lines = null;
      continue;
    }
    if (lines === null) {
      if (line.startsWith('--- a/') && path === null) path = line.slice(6);
      else if (line.startsWith('+++ b/')) path = line.slice(6);
      if (line.startsWith('@@')) {
        lines = [];
        if (path !== null) out.set(path, lines);
      } else continue;
    }
    if (lines !== null && line !== '') lines.push(line);
  }
  return out;
}

function actions(tv) {
  const bar = el('div', 'diff-actions');
  const undo = el('button', 'diff-undo', 'Undo');
  undo.type = 'button';
  undo.title = 'Revert this turn\'s changes in the workspace (only this turn\'s)';
  const branch = el('input', 'diff-branch');
  branch.placeholder = 'gadget/' + (state.watched || 'this chat');
  branch.setAttribute('aria-label', 'Branch');
  const message = el('input', 'diff-message');
  message.placeholder = 'Commit message (proposed from the prompts when empty)';
  message.setAttribute('aria-label', 'Commit message');
  const commit = el('button', 'diff-commit', 'Commit');
  commit.type = 'button';
  commit.title = 'Commit this chat\'s changes on the branch (your own uncommitted changes stay out)';
  const push = el('button', 'diff-push', 'Push');
  push.type = 'button';
  push.title = 'Push the branch to the project\'s remote';
  push.disabled = true;
  const result = el('div', 'diff-result');
  const run = async (button, event, payload, done) => {
    result.textContent = '';
    result.classList.remove('error');
    button.disabled = true;
    try {
      done(await request(event, payload));
    } catch (e) {
      result.textContent = e.message;
      result.classList.add('error');
      button.disabled = false;
    }
  };
  undo.addEventListener('click', () => run(undo, 'undoTurn', { turnId: tv.id }, () => {
    result.textContent = 'Undone.';
  }));
  commit.addEventListener('click', () => {
    const payload = { sessionId: state.watched };
    if (branch.value.trim()) payload.branch = branch.value.trim();
    if (message.value.trim()) payload.message = message.value.trim();
    run(commit, 'commitChanges', payload, (r) => {
      result.textContent = 'Committed ' + String(r.commit || '').slice(0, 10) + ' on '
        + r.branch + ': ' + String(r.message || '').split('\n')[0];
      branch.value = r.branch;
      commit.disabled = false;
      push.disabled = false;
    });
  });
  push.addEventListener('click', () => {
    const payload = { sessionId: state.watched };
    if (branch.value.trim()) payload.branch = branch.value.trim();
    run(push, 'pushChanges', payload, (r) => {
      result.textContent = 'Pushed ' + r.branch + ' to ' + r.remote + '.';
    });
  });
  bar.append(undo, branch, message, commit, push, result);
  return bar;
}

/** Marks a turn's changes undone once its undo's record arrived: no Undo any more. */
export function markUndone(tv) {
  for (const b of tv.el.querySelectorAll('.diff-undo')) {
    b.disabled = true;
    b.textContent = 'Undone';
  }
}

/**
 * The server's turnChanges event: a stream event with a seq (the turn's diff, handled with the
 * other stream events by {@code onStream}), or an undo's record with the stored block.
 */
export function onTurnChanges(p, onStream, addBlock) {
  if (!p.block) {
    onStream('turnChanges', p);
    return;
  }
  const tv = state.turns.get(p.turnId);
  if (!tv || tv.blocks.some((v) => v.seq === p.block.seq)) return;
  addBlock(tv, p.block, false);
}
