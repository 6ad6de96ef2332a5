// The page's state: who is signed in, what is shown (project, chat, its turns), the socket, and
// where the state outlives a reload (the token and last chat in localStorage, the chat in the
// URL's hash). Every module reads and writes the one `state` object.

export const TOKEN_KEY = 'gadget.token';
export const SESSION_KEY = 'gadget.session';

export const state = {
  token: null,
  socket: null,
  config: null,
  user: null,
  projects: [],
  sessions: [],
  projectId: null,
  sessionId: null,
  watched: null,
  turns: new Map(), // turnId -> turn view, for the watched session
  dirty: new Set(), // blocks waiting to be rendered
  frame: 0,
};

export function hashParams() {
  return new URLSearchParams(location.hash.replace(/^#/, ''));
}

export function setHashSession(sessionId) {
  const h = sessionId ? '#s=' + encodeURIComponent(sessionId) : '';
  if (location.hash !== h) history.replaceState(null, '', location.pathname + location.search + h);
}
