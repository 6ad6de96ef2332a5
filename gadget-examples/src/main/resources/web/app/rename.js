// Renaming in place: the watched chat (✎ beside it in the list) and the project (Rename beside
// the picker). Enter saves through the server, which answers with the name it kept (or says
// why not, under the sidebar); Escape gives up.
import { state } from './state.js';
import { $, el, showError } from './dom.js';
import { request } from './server.js';

/** An input in place of `shown` (hidden meanwhile); `save(name)` on Enter. */
function editInPlace(shown, value, label, save) {
  const input = el('input', 'rename-input');
  input.value = value;
  input.setAttribute('aria-label', label);
  shown.hidden = true;
  shown.after(input);
  input.focus();
  input.select();
  const done = () => {
    input.remove();
    shown.hidden = false;
  };
  input.addEventListener('keydown', async (ev) => {
    if (ev.key === 'Escape') {
      ev.stopPropagation();
      done();
    } else if (ev.key === 'Enter') {
      ev.preventDefault();
      showError('side-error', '');
      try {
        await save(input.value.trim());
        done();
      } catch (e) {
        showError('side-error', e.message);
      }
    }
  });
  input.addEventListener('blur', () => setTimeout(() => { if (input.isConnected) done(); }, 150));
}

/** Adds ✎ to the watched chat's entry in the list; `rerender` redraws the list after. */
export function addRenameButton(li, session, rerender) {
  const b = el('button', 'link rename', '✎');
  b.type = 'button';
  b.setAttribute('aria-label', 'Rename chat');
  b.title = 'Rename chat';
  b.addEventListener('click', () => {
    editInPlace(li.querySelector('.session'), session.name, 'Chat name', async (name) => {
      const reply = await request('renameSession', { sessionId: session._id, name });
      session.name = reply.session.name;
      rerender();
    });
  });
  li.appendChild(b);
}

export function wireRenameProject() {
  $('rename-project').addEventListener('click', () => {
    const project = state.projects.find((p) => p._id === state.projectId);
    if (!project) return;
    editInPlace($('project-select'), project.name, 'Project name', async (name) => {
      const reply = await request('renameProject', { projectId: project._id, name });
      project.name = reply.project.name;
      const option = $('project-select').querySelector('option[value="' + CSS.escape(project._id) + '"]');
      if (option) option.textContent = project.name;
    });
  });
}
