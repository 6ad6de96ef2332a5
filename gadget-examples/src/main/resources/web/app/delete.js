// Deleting chats and projects: a trash can beside the watched chat (next to ✎) and Delete beside the
// project picker. A confirmation dialog says what goes with it (a chat's turns; a project's
// chats); Cancel has the focus, Escape cancels, Enter on Delete deletes. The server refuses while
// the agent works there, and says so under the sidebar. After a deletion the page shows the
// next chat, or the empty state; other tabs watching a deleted chat hear `sessionDeleted`.
import { state } from './state.js';
import { $, el, showError } from './dom.js';
import { request } from './server.js';

let dialog = null;

function confirmDialog() {
  if (dialog) return dialog;
  dialog = el('dialog', 'confirm');
  dialog.id = 'confirm-delete';
  dialog.setAttribute('aria-labelledby', 'confirm-delete-title');
  const form = el('form');
  form.method = 'dialog';
  const title = el('h2', null, '');
  title.id = 'confirm-delete-title';
  const text = el('p', 'confirm-text', '');
  const buttons = el('div', 'confirm-buttons');
  const cancel = el('button', null, 'Cancel');
  cancel.value = 'cancel';
  cancel.autofocus = true;
  const del = el('button', 'danger', 'Delete');
  del.value = 'delete';
  del.id = 'confirm-delete-button';
  buttons.append(cancel, del);
  form.append(title, text, buttons);
  dialog.appendChild(form);
  // Escape closes the dialog only, not the phone drawer behind it (app/drawer.js).
  dialog.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') ev.stopPropagation(); });
  document.body.appendChild(dialog);
  return dialog;
}

/** Asks; resolves true when the person chose Delete. */
export function confirmDelete(title, text) {
  const d = confirmDialog();
  d.querySelector('h2').textContent = title;
  d.querySelector('.confirm-text').textContent = text;
  d.returnValue = '';
  return new Promise((resolve) => {
    d.addEventListener('close', () => resolve(d.returnValue === 'delete'), { once: true });
    d.showModal();
    d.querySelector('button[value="cancel"]').focus();
  });
}

async function deleteAfterConfirm(title, text, event, payload, done) {
  showError('side-error', '');
  if (!(await confirmDelete(title, text))) return;
  try {
    await request(event, payload);
    await done();
  } catch (e) {
    showError('side-error', e.message);
  }
}

/** A trash can drawn in the text's colour (no emoji font needed). */
function trashIcon() {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', 'M3 6h18M8 6V4h8v2M6 6l1 15h10l1-15M10 10v7M14 10v7');
  svg.appendChild(path);
  return svg;
}

/** Adds a trash can to the watched chat's entry; `forget(id)` updates the page after. */
export function addDeleteButton(li, session, forget) {
  const b = el('button', 'link delete');
  b.appendChild(trashIcon());
  b.type = 'button';
  b.setAttribute('aria-label', 'Delete chat');
  b.title = 'Delete chat';
  b.addEventListener('click', () => deleteAfterConfirm('Delete this chat?',
    '“' + session.name + '” and all its messages will be deleted. This cannot be undone.',
    'deleteSession', { sessionId: session._id }, () => forget(session._id)));
  li.appendChild(b);
}

/** Wires Delete beside the project picker; `forget(id)` updates the page once it is deleted. */
export function wireDeleteProject(forget) {
  $('delete-project').addEventListener('click', () => {
    const project = state.projects.find((p) => p._id === state.projectId);
    if (!project) return;
    deleteAfterConfirm('Delete this project?', '“' + project.name + '” and all its chats '
      + 'will be deleted. Drones keep their copies of the repository. This cannot be undone.',
    'deleteProject', { projectId: project._id }, () => forget(project._id));
  });
}
