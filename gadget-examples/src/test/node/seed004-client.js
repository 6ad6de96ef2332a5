'use strict';
// A client of seed 004's agent event schema (shared/seeds/004: "WebSocket/Socket.IO Event
// Schema"), written from that document alone: the stock npm socket.io-client, the documented
// event names and payloads. All it knows of Gadget is where to connect and a token.
//
//   node seed004-client.js '{"url": "http://127.0.0.1:PORT/agent", "token": "gdt_…",
//                            "queries": [{"prompt": "…", "session_id": "…"}], "timeoutMs": 30000}'
//
// Prints one line, {"type":"result","result":{"log":[{"event","payload"}…]}} (every event it
// received, in order) or {"type":"error","message"}. Exit code 0 / 1.
const path = require('path');
// the socket.io-client the build installs for the web page (src/main/web-libs)
const { io } = require(path.join(__dirname, '..', '..', 'main', 'web-libs', 'node_modules',
  'socket.io-client'));

const cfg = JSON.parse(process.argv[2]);
const timeoutMs = cfg.timeoutMs || 30000;
const log = [];

function finish(obj, code) {
  process.stdout.write(JSON.stringify(obj) + '\n');
  process.exit(code);
}

function waitFor(what, predicate) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = predicate();
      if (found) return resolve(found);
      if (Date.now() > deadline) return reject(new Error('timed out waiting for ' + what));
      setTimeout(check, 20);
    };
    check();
  });
}

// The server speaks WebSocket only (no long-polling).
const socket = io(cfg.url, { auth: { token: cfg.token }, transports: ['websocket'],
  reconnection: false });
socket.on('connect', () => log.push({ event: 'connect' }));
socket.on('connect_error', (e) => finish({ type: 'error', message: 'connect_error: ' + e.message }, 1));
for (const name of ['connected', 'tool_count', 'session_memory', 'agent_event', 'query_complete',
  'error']) {
  socket.on(name, (payload) => log.push({ event: name, payload }));
}

async function main() {
  await waitFor('connected', () => log.some((e) => e.event === 'connected'));
  await waitFor('tool_count', () => log.some((e) => e.event === 'tool_count'));
  for (const q of cfg.queries || []) {
    const from = log.length;
    socket.emit('query', q);
    // a query ends with tool_count after query_complete (the documented flows; a query that
    // failed has its error among them), or with an error when it was refused
    await waitFor('the end of query "' + q.prompt + '"', () => {
      const after = log.slice(from);
      const done = after.findIndex((e) => e.event === 'query_complete');
      return done >= 0 ? after.slice(done).some((e) => e.event === 'tool_count')
        : after.some((e) => e.event === 'error');
    });
    if (cfg.lingerMs) await new Promise((r) => setTimeout(r, cfg.lingerMs));
  }
  socket.close();
  finish({ type: 'result', result: { log } }, 0);
}

main().catch((e) => finish({ type: 'error', message: String(e && e.message || e), log }, 1));
