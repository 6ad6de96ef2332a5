'use strict';
// A page on the stock socket.io-client (the one the web page bundles): it signs in with a page
// token, watches one chat session and prints what it gets, one JSON object per line:
// {"event":"snapshot","snapshot"} for watchSession's answer, {"event":"ev","name","payload"}
// for each event of the session, in the order it came. Ends itself after args.deadlineMs.
//
// Usage: node cluster-page.js <base-url> <json-args> (args: token, sessionId, deadlineMs).
const { io } = require('socket.io-client');

const [url, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const print = (o) => process.stdout.write(JSON.stringify(o) + '\n');
setTimeout(() => { print({ event: 'deadline' }); process.exit(3); }, args.deadlineMs || 120000)
  .unref();

const socket = io(url, { transports: ['websocket'], auth: { token: args.token },
  reconnection: false });
for (const name of ['turnStarted', 'thinking', 'response', 'toolStarted', 'toolOutput',
  'toolCall', 'turnChanges', 'workOrderComplete', 'turnResumed', 'blocksSuperseded',
  'turnRecovered']) {
  socket.on(name, (payload) => print({ event: 'ev', name, payload }));
}
socket.on('connect', () => {
  socket.emit('watchSession', { sessionId: args.sessionId },
    (snapshot) => print({ event: 'snapshot', snapshot }));
});
socket.on('connect_error', (e) => { print({ event: 'error', message: String(e.message) });
  process.exit(4); });
socket.on('disconnect', (reason) => print({ event: 'disconnect', reason }));
