// Calls to the server: the REST API (sign-in, config, stored turns) and Socket.IO requests
// answered by an ack.
import { state } from './state.js';

const ACK_TIMEOUT = 15000;

export async function api(path) {
  const r = await fetch(path, {
    headers: state.token ? { Authorization: 'Bearer ' + state.token } : {},
    cache: 'no-store',
  });
  let body = null;
  try {
    body = await r.json();
  } catch (e) {
    body = null;
  }
  if (!r.ok) {
    const err = new Error((body && body.error) || 'HTTP ' + r.status);
    err.status = r.status;
    throw err;
  }
  return body;
}

/** Emits a page → server event and resolves with its ack (rejects on timeout/disconnect). */
export function request(event, payload) {
  return new Promise((resolve, reject) => {
    state.socket.timeout(ACK_TIMEOUT).emit(event, payload, (err, reply) => {
      if (err) reject(new Error('the server did not answer (' + event + ')'));
      else if (reply && reply.error) reject(new Error(reply.error));
      else resolve(reply || {});
    });
  });
}
