'use strict';
// A page written as a third party would write one, from docs/PROTOCOL.md's "Session snapshot
// and the live tail" section alone (and the event tables for names and payloads), on the stock
// socket.io-client 4.8. It shows each turn as the snapshot's `turns` blocks, then the turn's
// `openBlock`, then the live events with `seq > lastSeq`, and does nothing more to avoid
// showing a block twice. It runs the turns of args.prompts one after the other, and loses its
// connection over and over while each runs: after every args.dropEvery stream events of a
// running turn, and on "drop" from stdin (at once, or once it has its next snapshot). The stock
// manager reconnects by itself; each connection watches the session again and the page rebuilds
// what it shows from that snapshot.
//
// Usage: node snapshot-page.js <base-url> <json-args> (args: token, gitUrl, prompts, dropEvery).
// Prints one JSON object per line: {"event":"submitted","index","turnId"};
// {"event":"rebuilt","conn","asked","turnId","view","missed"} after each snapshot (asked: it
// followed a "drop" from stdin; turnId: the running turn; view: what the page shows of it;
// missed: the events of it that came only in this snapshot); {"event":"shown","turnId","view",
// "drops"} when a turn has ended; {"event":"done"} (or exits non-zero).
// A view is the turn's blocks, each "mode:text" ("tool:<name>" for a tool block).
const { Manager } = require('socket.io-client');
const readline = require('readline');
const { print, deadline } = require('./lib');

const [url, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
deadline(args.deadlineMs || 120000);

const m = new Manager(url, {
  transports: ['websocket'],
  autoConnect: false,
  reconnection: true,
  reconnectionDelay: 1,
  reconnectionDelayMax: 20,
});
const socket = m.socket('/', { auth: { token: args.token } });

// What the page shows: turnId -> {blocks: [{mode, text}], open: index of the open block or -1,
// lastSeq, ended}.
let turns = new Map();
let sessionId = null;
let conn = 0;
let synced = false; // this connection has its snapshot
let early = []; // live events that came before the snapshot's ack
let sinceSync = 0; // stream events of the running turn applied on this connection
let dropPending = false; // a drop asked for while not synced: made after the next snapshot
let asked = false; // the next snapshot follows a drop asked for
let index = -1; // the prompt running
let current = null; // its turnId
let drops = 0;

function fail(err) {
  print({ event: 'error', message: String(err && err.stack || err) });
  process.exit(5);
}

function shown(block) {
  if (block.mode === 'tool') return { mode: 'tool', text: block.content.name };
  return { mode: block.mode, text: typeof block.content === 'string' ? block.content
    : JSON.stringify(block.content) };
}

function view(turnId) {
  const t = turns.get(turnId);
  return t ? t.blocks.map((b) => b.mode + ':' + b.text) : [];
}

// "A page shows each turn's blocks from `turns`, then the turn's `openBlock`, then applies each
// live event with `seq > lastSeq`."
function rebuild(snapshot) {
  const before = current && turns.get(current) ? turns.get(current).lastSeq : null;
  turns = new Map();
  for (const t of snapshot.turns) {
    turns.set(t._id, { blocks: t.blocks.map(shown), open: -1, lastSeq: Infinity,
      ended: t.status !== 'processing' });
  }
  for (const l of snapshot.live) {
    if (!turns.has(l.turnId)) turns.set(l.turnId, { blocks: [], open: -1 });
    const t = turns.get(l.turnId);
    t.lastSeq = l.lastSeq;
    t.ended = false;
    if (l.openBlock) {
      t.blocks.push(shown(l.openBlock));
      t.open = t.blocks.length - 1;
    }
  }
  synced = true;
  sinceSync = 0;
  const t = current && turns.get(current);
  print({ event: 'rebuilt', conn, asked, turnId: current, view: view(current),
    missed: t && before !== null && Number.isFinite(t.lastSeq) ? t.lastSeq - before : 0 });
  asked = false;
  const pending = early;
  early = [];
  pending.forEach(([name, payload]) => apply(name, payload));
  if (t && t.ended) {
    turnEnded();
  }
}

function apply(name, payload) {
  if (!synced) {
    early.push([name, payload]);
    return;
  }
  if (name === 'turnStarted') {
    if (!turns.has(payload.turn._id)) {
      turns.set(payload.turn._id, { blocks: [], open: -1, lastSeq: -1, ended: false });
    }
    return;
  }
  const t = turns.get(payload.turnId);
  if (!t || payload.seq <= t.lastSeq) return;
  t.lastSeq = payload.seq;
  if (name === 'thinking' || name === 'response') {
    const mode = name === 'thinking' ? 'thinking' : 'responding';
    if (t.open >= 0 && t.blocks[t.open].mode === mode) {
      t.blocks[t.open].text += payload.data;
    } else {
      t.blocks.push({ mode, text: payload.data });
      t.open = t.blocks.length - 1;
    }
  } else if (name === 'toolCall') {
    t.blocks.push({ mode: 'tool', text: payload.call.name });
    t.open = -1;
  } else if (name === 'compaction') {
    t.blocks.push({ mode: 'compaction', text: JSON.stringify(payload.compaction) });
    t.open = -1;
  } else if (name === 'turnChanges') {
    t.blocks.push({ mode: 'diff', text: JSON.stringify(payload.diff) });
    t.open = -1;
  } else if (name === 'workOrderComplete') {
    t.open = -1;
    t.ended = true;
  }
  if (payload.turnId !== current) return;
  if (t.ended) {
    turnEnded();
  } else if (++sinceSync >= args.dropEvery) {
    drop();
  }
}

function drop() {
  if (!synced) return;
  synced = false;
  drops++;
  m.engine.close(); // the transport is lost; the manager connects again by itself
}

function turnEnded() {
  if (current === null) return;
  print({ event: 'shown', turnId: current, view: view(current), drops });
  current = null;
  drops = 0;
  submitNext();
}

async function request(name, payload) {
  const reply = await socket.timeout(10000).emitWithAck(name, payload);
  if (reply && reply.error) throw new Error(name + ' failed: ' + reply.error);
  return reply;
}

function submitNext() {
  index++;
  if (index === args.prompts.length) {
    print({ event: 'done' });
    process.stdout.write('', () => process.exit(0));
    return;
  }
  // no drop is made while this request waits for its ack: nothing runs yet
  request('submitPrompt', { sessionId, prompt: args.prompts[index] }).then((reply) => {
    current = reply.turnId;
    print({ event: 'submitted', index, turnId: current });
    const t = turns.get(current);
    if (t && t.ended) turnEnded();
  }).catch(fail);
}

for (const name of ['turnStarted', 'thinking', 'response', 'toolCall', 'compaction',
  'turnChanges', 'workOrderComplete']) {
  socket.on(name, (payload) => apply(name, payload));
}
socket.on('connect_error', (err) => fail('connect_error: ' + err.message));
socket.on('disconnect', () => { synced = false; early = []; });
socket.on('connect', () => {
  conn++;
  const mine = conn;
  const watch = () => request('watchSession', { sessionId }).then((snapshot) => {
    if (mine !== conn) return; // that connection is gone already
    rebuild(snapshot);
    if (dropPending) {
      dropPending = false;
      asked = true;
      drop();
    }
  });
  if (sessionId) {
    watch().catch((err) => { if (mine === conn) fail(err); });
    return;
  }
  (async () => {
    const { project } = await request('createProject',
      { name: 'Sample ' + Math.random().toString(36).slice(2, 10), slug: 'sample',
        gitUrl: args.gitUrl });
    const { session } = await request('createSession', { projectId: project._id, name: 'Chat' });
    sessionId = session._id;
    await watch();
    submitNext();
  })().catch(fail);
});
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'drop') return;
  if (synced) {
    asked = true;
    drop();
  } else {
    dropPending = true;
  }
});
socket.connect();
