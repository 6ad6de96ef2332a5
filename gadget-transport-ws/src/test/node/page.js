'use strict';
// A stock socket.io-client 4.8 (WebSocket transport only) acting as a Gadget page
// (docs/PROTOCOL.md) against a real GadgetServer.
// Usage: node page.js <base-url> <scenario> <json-args>. Prints one JSON object per line: every
// ack as {"event":"ack","name",...,"payload"}, every server event as
// {"event":<name>,"conn":n,"argc":k,"payload"} (conn counts the page's connects), and ends with
// {"event":"done"} (or exits non-zero).
const { Manager } = require('socket.io-client');
const readline = require('readline');
const { print, deadline } = require('./lib');

const [url, scenario, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson || '{}');
deadline(25000);

const STREAM_EVENTS = ['turnStarted', 'thinking', 'response', 'toolStarted', 'toolCall',
  'workOrderComplete'];

function manager(extra) {
  return new Manager(url, Object.assign({
    transports: ['websocket'],
    autoConnect: false,
    reconnection: false,
  }, extra || {}));
}

function done() {
  print({ event: 'done' });
  process.stdout.write('', () => process.exit(0)); // once what was printed has been flushed
}

// Sends one page request with its single JSON object payload and waits for the ack (one JSON
// object too); prints it and returns it.
async function request(socket, name, payload) {
  const reply = await socket.timeout(10000).emitWithAck(name, payload);
  print({ event: 'ack', name, payload: reply });
  if (reply && reply.error) {
    throw new Error(name + ' failed: ' + reply.error);
  }
  return reply;
}

// Prints every server → page event with the connection it came on and its argument count.
function recordEvents(socket, conn, onEvent) {
  for (const name of STREAM_EVENTS) {
    socket.on(name, (...received) => {
      print({ event: name, conn: conn(), argc: received.length, payload: received[0] });
      if (onEvent) onEvent(name, received[0]);
    });
  }
}

// createProject, createSession, watchSession, submitPrompt: the page's way to start a turn.
async function startTurn(socket) {
  const { project } = await request(socket, 'createProject',
    // a name of its own: a user's project names are unique, and a run may start several turns
    { name: 'Sample ' + Math.random().toString(36).slice(2, 10), slug: 'sample', gitUrl: args.gitUrl });
  const { session } = await request(socket, 'createSession',
    { projectId: project._id, name: 'Chat' });
  await request(socket, 'watchSession', { sessionId: session._id });
  await request(socket, 'submitPrompt', { sessionId: session._id, prompt: args.prompt });
  return session._id;
}

function fail(err) {
  print({ event: 'error', message: String(err && err.stack || err) });
  process.exit(5);
}

const scenarios = {
  // One whole turn; then a fresh watchSession shows the stored turn.
  roundTrip() {
    const s = manager().socket('/', { auth: { token: args.token } });
    let sessionId;
    recordEvents(s, () => 1, (name) => {
      if (name !== 'workOrderComplete') return;
      request(s, 'watchSession', { sessionId })
        .then(() => {
          s.disconnect();
          done();
        })
        .catch(fail);
    });
    s.on('connect_error', (err) => fail('connect_error: ' + err.message));
    s.on('connect', () => {
      print({ event: 'connect', id: s.id });
      startTurn(s).then((id) => { sessionId = id; }).catch(fail);
    });
    s.connect();
  },

  // Each attempt on its own connection; then the right token is still served.
  refusals() {
    const attempts = args.attempts;
    const next = (i) => {
      if (i === attempts.length) {
        const ok = manager().socket('/', { auth: { token: args.token } });
        ok.on('connect', async () => {
          try {
            await request(ok, 'listProjects', {});
            ok.disconnect();
            done();
          } catch (err) {
            fail(err);
          }
        });
        ok.on('connect_error', (err) => fail('connect_error: ' + err.message));
        ok.connect();
        return;
      }
      const a = attempts[i];
      const opts = a.auth === undefined ? {} : { auth: a.auth };
      const s = manager().socket(a.namespace, opts);
      s.on('connect', () => {
        print({ event: 'connect', namespace: a.namespace });
        s.disconnect();
        next(i + 1);
      });
      s.on('connect_error', (err) => {
        print({ event: 'connect_error', namespace: a.namespace, message: err.message,
          data: err.data === undefined ? null : err.data, active: s.active });
        s.io.engine.close();
        next(i + 1);
      });
      s.connect();
    };
    next(0);
  },

  // Starts a turn; on "drop" from stdin loses the connection mid-turn, and on "watch" watches
  // the session again once connected again, prints the snapshot, and follows the turn to its
  // end. args.how: "transport" closes the WebSocket on "drop" and lets the manager reconnect by
  // itself; "socket" sends DISCONNECT on "drop" and CONNECTs again on "watch".
  reconnect() {
    const m = manager({ reconnection: true, reconnectionDelay: 50, reconnectionDelayMax: 200 });
    const s = m.socket('/', { auth: { token: args.token } });
    let conn = 0;
    let sessionId;
    let watchRequested = false;
    const watchAgain = () => {
      if (conn < 2 || !watchRequested) return;
      watchRequested = false;
      s.timeout(10000).emitWithAck('watchSession', { sessionId })
        .then((snapshot) => print({ event: 'snapshot', conn, payload: snapshot }))
        .catch(fail);
    };
    recordEvents(s, () => conn, (name) => {
      if (name === 'workOrderComplete' && conn === 2) {
        s.disconnect();
        done();
      }
    });
    s.on('connect_error', (err) => fail('connect_error: ' + err.message));
    s.on('disconnect', (reason) => print({ event: 'disconnect', conn, reason, active: s.active }));
    s.on('connect', () => {
      conn++;
      print({ event: 'connect', conn, id: s.id });
      if (conn === 1) {
        startTurn(s).then((id) => { sessionId = id; }).catch(fail);
      } else {
        watchAgain();
      }
    });
    readline.createInterface({ input: process.stdin }).on('line', (line) => {
      const command = line.trim();
      if (command === 'watch') {
        watchRequested = true;
        if (args.how === 'socket') {
          s.connect();
        } else {
          watchAgain();
        }
      } else if (command === 'drop') {
        print({ event: 'dropping', conn, how: args.how });
        if (args.how === 'socket') {
          s.disconnect();
        } else {
          m.engine.close();
        }
      }
    });
    s.connect();
  },
};

const run = scenarios[scenario];
if (!run) {
  print({ event: 'error', message: 'unknown scenario ' + scenario });
  process.exit(2);
}
run();
