// How a model samples (docs/PROVIDERS.md, "Sampling"): the three optional fields of the provider
// form (Temperature, Top-p, Top-k) and the chat's own three beside its model, each empty field
// leaving the value to the provider, then to the server. A chat's field shows, greyed, the value
// it inherits. The server checks the ranges and answers out-of-range values in words.
import { $, showError } from './dom.js';
import { request } from './server.js';

export const FIELDS = [
  { key: 'temperature', label: 'temperature', range: '0 to 2' },
  { key: 'topP', label: 'top-p', range: 'above 0, at most 1' },
  { key: 'topK', label: 'top-k', range: 'a whole number, 1 or more' },
];

/** The sampling typed in three number inputs (by key): only the values set. */
export function readSampling(inputs) {
  const sampling = {};
  for (const f of FIELDS) {
    const input = inputs[f.key];
    if (input.validity.badInput) throw new Error(f.label + ' must be a number (' + f.range + ')');
    if (input.value.trim() !== '') sampling[f.key] = Number(input.value);
  }
  return sampling;
}

/** Puts a sampling (or none) into three number inputs. */
export function fillSampling(inputs, sampling) {
  for (const f of FIELDS) {
    const v = sampling ? sampling[f.key] : undefined;
    inputs[f.key].value = v === undefined || v === null ? '' : String(v);
  }
}

function chatInputs() {
  return { temperature: $('chat-temperature'), topP: $('chat-top-p'), topK: $('chat-top-k') };
}

let shownFor = null;

/**
 * Shows a chat's own sampling, and as each empty field's placeholder what it inherits: its
 * provider's value, else the server's (`operator`, the default provider's view). While the
 * person is in one of the fields, the same chat's values are left as typed (an answer about its
 * model may come in meanwhile).
 */
export function showChatSampling(session, provider, operator) {
  const inputs = chatInputs();
  const id = session ? session._id : null;
  if (id !== shownFor || !$('chat-sampling').contains(document.activeElement)) {
    fillSampling(inputs, session && session.sampling);
  }
  shownFor = id;
  for (const f of FIELDS) {
    const own = provider && provider.sampling ? provider.sampling[f.key] : undefined;
    const server = operator && operator.sampling ? operator.sampling[f.key] : undefined;
    const inherited = own !== undefined ? own : server;
    const input = inputs[f.key];
    input.placeholder = inherited === undefined ? f.label : f.label + ' ' + inherited;
    input.title = 'This chat\'s ' + f.label + ' (' + f.range + '). Empty: '
      + (inherited === undefined ? 'the model\'s own' : inherited + ', from '
        + (own !== undefined ? 'the provider' : 'the server'));
  }
  $('chat-sampling').dataset.saved = JSON.stringify((session && session.sampling) || {});
}

/** Saves the chat's sampling when one of its fields changes; `after` shows the saved session. */
export function wireChatSampling(currentSession, after) {
  const save = async () => {
    const s = currentSession();
    if (!s) return;
    try {
      const sampling = readSampling(chatInputs());
      const reply = await request('setSessionSampling', { sessionId: s._id, sampling });
      // absent in the reply when cleared: Object.assign alone would keep the old one
      s.sampling = reply.session.sampling;
      showError('model-error', '');
      after();
    } catch (e) {
      showError('model-error', e.message);
    }
  };
  for (const input of Object.values(chatInputs())) input.addEventListener('change', save);
}
