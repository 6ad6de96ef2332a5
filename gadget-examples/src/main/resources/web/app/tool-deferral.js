// A chat's own tool deferral (docs/TOOL-SEARCH.md, "Many tools: search and deferral"): one field beside
// its sampling saying when its turns offer the model only the always-loaded tools and
// search_tools: auto (10% of the context budget), always, never or a share such as 20%; empty, as
// the drone is set. The server checks it and answers nonsense in words.
import { $, showError } from './dom.js';
import { request } from './server.js';

let shownFor = null;

/** Shows a chat's tool deferral; while the person is in the field, the same chat's is left as typed. */
export function showChatToolDeferral(session) {
  const input = $('chat-tool-deferral');
  const id = session ? session._id : null;
  const own = (session && session.toolDeferral) || '';
  if (id !== shownFor || document.activeElement !== input) input.value = own;
  shownFor = id;
  input.dataset.saved = own;
}

/** Saves the chat's tool deferral when its field changes; `after` shows the saved session. */
export function wireChatToolDeferral(currentSession, after) {
  const input = $('chat-tool-deferral');
  input.addEventListener('change', async () => {
    const s = currentSession();
    if (!s) return;
    try {
      const reply = await request('setSessionToolDeferral',
        { sessionId: s._id, toolDeferral: input.value.trim() });
      // absent in the reply when cleared: Object.assign alone would keep the old one
      s.toolDeferral = reply.session.toolDeferral;
      showError('model-error', '');
      after();
    } catch (e) {
      showError('model-error', e.message);
    }
  });
}
