// The sign-in screen and the page token: taken once from a #token= link, kept in localStorage,
// dropped on sign-out or when the server refuses it.
import { state, TOKEN_KEY, hashParams } from './state.js';
import { $, showError } from './dom.js';

/** Takes the token from a #token= link (asking before switching accounts), then loads it. */
export function loadToken() {
  const params = hashParams();
  const fromUrl = params.get('token');
  if (fromUrl) {
    const current = localStorage.getItem(TOKEN_KEY);
    // A link must not silently switch a signed-in person to another account.
    if (!current || current === fromUrl
        || window.confirm('This link signs you in with another token. Switch accounts?')) {
      localStorage.setItem(TOKEN_KEY, fromUrl);
    }
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
  }
  state.token = localStorage.getItem(TOKEN_KEY);
}

/** The sign-in form (then `start`) and the Sign out button. */
export function wireSignIn(start) {
  $('signin-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = $('token-input').value.trim();
    if (!t) return;
    localStorage.setItem(TOKEN_KEY, t);
    state.token = t;
    $('token-input').value = '';
    start();
  });
  $('signout').addEventListener('click', () => signOut(''));
}

export function showSignIn(message) {
  $('app').hidden = true;
  $('signin').hidden = false;
  showError('signin-error', message);
  $('token-input').focus();
}

export function signOut(message) {
  localStorage.removeItem(TOKEN_KEY);
  state.token = null;
  if (state.socket) {
    state.socket.disconnect();
    state.socket = null;
  }
  showSignIn(message);
}

/**
 * A #token= link pasted into a tab that already shows the page changes only the fragment: take
 * the token from it and sign in again (the sign-in screen's old message goes).
 */
export function watchSignInLinks(start) {
  window.addEventListener('hashchange', () => {
    if (!hashParams().get('token')) return;
    const before = state.token;
    loadToken();
    if (state.token && (state.token !== before || !$('signin').hidden)) {
      showError('signin-error', '');
      start();
    }
  });
}
