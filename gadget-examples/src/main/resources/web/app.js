// The Gadget web chat. Plain browser JavaScript as native ES modules, no build step:
// socket.io-client for the live protocol (docs/PROTOCOL.md), marked for Markdown, DOMPurify to
// sanitize it (LLM output is untrusted), and the REST API for sign-in and history. The three
// libraries are classic scripts loaded before this module (index.html) and used as globals.
//
// This file boots the page: sign-in, then the connection. The parts live in app/:
//   state.js       the page's state, localStorage keys, the URL hash
//   dom.js         DOM shorthands
//   server.js      REST calls and Socket.IO requests with an ack
//   signin.js      the sign-in screen and the page token
//   connection.js  the Socket.IO connection and its events
//   sidebar.js     projects, chats, the watched chat
//   drawer.js      the sidebar as a drawer on narrow screens
//   empty.js       what an empty pane offers: a new project, prompts to start from
//   title.js       the tab's title: working, finished
//   drones.js      the drone list
//   agent-tools.js the watched chat's skills and the agent's own tools: promote, delete
//   providers.js   LLM providers, the chat's model picker, usage totals
//   sampling.js    a model's sampling: the provider form's fields and the chat's own
//   turns.js       the watched chat's turns, from the snapshot and the live stream
//   render.js      how blocks look: thinking, Markdown replies, tool calls, the status footer
//   composer.js    sending a prompt and cancelling a turn
import { state } from './app/state.js';
import { $ } from './app/dom.js';
import { api } from './app/server.js';
import { loadToken, showSignIn, signOut, wireSignIn, watchSignInLinks } from './app/signin.js';
import { wireDrawer } from './app/drawer.js';
import { wireTitle } from './app/title.js';
import { connect } from './app/connection.js';
import { sessionForPrompt, wireSidebar } from './app/sidebar.js';
import { wireComposer } from './app/composer.js';
import { pollDrones } from './app/drones.js';
import { wireProviders } from './app/providers.js';
import { wireAgentTools } from './app/agent-tools.js';

function boot() {
  loadToken();
  wireSignIn(start);
  watchSignInLinks(start);
  wireDrawer();
  wireTitle();
  wireSidebar();
  wireComposer(sessionForPrompt);
  wireProviders();
  wireAgentTools();
  pollDrones();
  if (state.token) start();
  else showSignIn('');
}

async function start() {
  try {
    const me = await api('/api/me');
    state.user = me.user;
    state.config = await api('/api/config');
  } catch (e) {
    if (e.status === 401) signOut('That token was not accepted: ' + e.message + '.');
    else showSignIn('Cannot reach the server: ' + e.message);
    return;
  }
  $('signin').hidden = true;
  $('signin-error').textContent = '';
  $('app').hidden = false;
  $('prompt').focus();
  $('whoami').textContent = state.user.username;
  const llm = state.config.llm || {};
  $('llm').textContent = llm.sdk ? llm.sdk + ' · ' + llm.model : '';
  $('scripted-banner').hidden = !state.config.scripted;
  connect();
}

// For the browser tests and the curious: what the page shows, and a way to drop the
// connection as a network failure would (socket.io-client then reconnects by itself).
window.gadgetPage = {
  dropConnection() {
    if (state.socket && state.socket.io.engine) state.socket.io.engine.close();
  },
  blocks() {
    return Array.from(document.querySelectorAll('#turns .block')).map((b) => ({
      turnId: b.closest('.turn').dataset.turnId,
      seq: Number(b.dataset.seq),
      mode: b.dataset.mode,
      text: b.textContent,
      superseded: b.classList.contains('superseded'),
    }));
  },
};

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
else boot();
