// What an empty pane offers: with no project, a way to create one; in a chat with no turns yet,
// a few prompts to start from (a click puts one in the prompt box, it does not send it).
import { state } from './state.js';
import { $, el } from './dom.js';
import { openDrawer } from './drawer.js';

const SUGGESTIONS = [
  'What is this project about?',
  'Find the tests and run them.',
  'Suggest one small improvement and make it.',
];

export function showEmptyChat() {
  const turns = $('turns');
  if (turns.querySelector('.turn, .empty')) return;
  const box = el('div', 'empty');
  if (!state.projectId) {
    box.appendChild(el('p', null, 'Create a project to begin: a name, and the git URL of a '
      + 'repository your drone can clone.'));
    const b = el('button', null, 'New project');
    b.type = 'button';
    b.id = 'empty-new-project';
    b.addEventListener('click', () => {
      openDrawer();
      $('new-project').open = true;
      $('project-form').elements.name.focus();
    });
    box.appendChild(b);
  } else {
    const project = state.projects.find((p) => p._id === state.projectId);
    box.appendChild(el('p', null, 'Ask the agent about ' + (project ? project.name : 'the project')
      + '. It reads, edits and runs the code in your drone’s copy.'));
    const list = el('div', 'suggestions');
    for (const text of SUGGESTIONS) {
      const b = el('button', 'suggestion', text);
      b.type = 'button';
      b.addEventListener('click', () => {
        $('prompt').value = text;
        $('prompt').focus();
      });
      list.appendChild(b);
    }
    box.appendChild(list);
  }
  turns.appendChild(box);
}
