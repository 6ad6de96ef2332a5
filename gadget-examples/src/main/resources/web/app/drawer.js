// The sidebar as a drawer on narrow screens (below 700 px, app.css): the ☰ button opens it,
// choosing a chat, the backdrop or Escape closes it. On wide screens the sidebar is always
// shown and these do nothing visible.
import { $ } from './dom.js';

export function openDrawer() {
  $('app').classList.add('drawer-open');
  $('menu').setAttribute('aria-expanded', 'true');
}

export function closeDrawer() {
  if (!$('app').classList.contains('drawer-open')) return;
  $('app').classList.remove('drawer-open');
  $('menu').setAttribute('aria-expanded', 'false');
}

export function wireDrawer() {
  $('menu').addEventListener('click', () => {
    if ($('app').classList.contains('drawer-open')) closeDrawer();
    else openDrawer();
  });
  $('backdrop').addEventListener('click', closeDrawer);
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') closeDrawer();
  });
}
