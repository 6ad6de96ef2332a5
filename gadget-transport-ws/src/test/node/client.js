'use strict';
// A stock socket.io-client 4.8 (WebSocket transport only) against a Gadget server.
// Usage: node client.js <base-url> <scenario>. Prints one JSON object per line and ends with
// {"event":"done"} (or exits non-zero).
const { Manager } = require('socket.io-client');
const { print, deadline, describe } = require('./lib');

const [url, scenario] = process.argv.slice(2);
deadline(20000);

function manager(extra) {
  return new Manager(url, Object.assign({
    transports: ['websocket'],
    autoConnect: false,
    reconnection: false,
  }, extra || {}));
}

// Opens the manager, reporting the raw Engine.IO handshake, and returns it.
function openManager(extra) {
  const m = manager(extra);
  m.open();
  m.engine.on('handshake', (data) => print({ event: 'handshake', data }));
  return m;
}

function done() {
  print({ event: 'done' });
  process.stdout.write('', () => process.exit(0)); // once what was printed has been flushed
}

const scenarios = {
  connect() {
    const m = openManager();
    const s = m.socket('/', { auth: { token: 'good', user: 'ada' } });
    s.on('connect', () => {
      print({ event: 'connect', id: s.id, engineId: m.engine.id, transport: m.engine.transport.name });
      s.disconnect();
      done();
    });
    s.connect();
  },

  echo() {
    const s = manager().socket('/', { auth: { token: 'good' } });
    s.on('echoed', (...args) => {
      print({ event: 'echoed', args });
      done();
    });
    s.on('connect', () => s.emit('echo', 'a', 1, { x: [true, null] }));
    s.connect();
  },

  async ack() {
    const s = manager().socket('/', { auth: { token: 'good' } });
    s.on('question', (n, cb) => cb(n * 2));
    s.on('answered', (answer) => print({ event: 'answered', answer }));
    s.on('ack-timeout', (message) => {
      print({ event: 'ack-timeout', message });
      done();
    });
    s.on('connect', async () => {
      const sum = await s.timeout(5000).emitWithAck('sum', 2, 3);
      print({ event: 'sum', sum });
      s.emit('ask');
      s.emit('ask-ignored');
    });
    s.connect();
  },

  binary() {
    const s = manager().socket('/', { auth: { token: 'good' } });
    let seen = 0;
    s.on('connect', () => {
      s.emit('bin', Buffer.from([1, 2, 3]), { nested: Buffer.from('hi'), list: [Buffer.alloc(0)] },
        (...back) => {
          print({ event: 'bin-ack', args: describe(back) });
          if (++seen === 2) done();
        });
    });
    s.on('bin-back', (...args) => {
      print({ event: 'bin-back', args: describe(args) });
      if (++seen === 2) done();
    });
    s.connect();
  },

  namespaces() {
    const m = manager();
    const root = m.socket('/', { auth: { token: 'good' } });
    const admin = m.socket('/admin', { auth: { token: 'good', admin: true } });
    let connected = 0;
    const onConnect = () => {
      if (++connected < 2) return;
      print({ event: 'both', rootId: root.id, adminId: admin.id, engineId: m.engine.id });
      admin.emit('echo', 'to-admin');
    };
    root.on('connect', onConnect);
    admin.on('connect', onConnect);
    admin.on('echoed', (...args) => {
      print({ event: 'admin-echoed', args });
      root.emit('echo', 'to-root');
    });
    root.on('echoed', (...args) => {
      print({ event: 'root-echoed', args });
      done();
    });
    root.connect();
    admin.connect();
  },

  refused() {
    const s = manager().socket('/', { auth: { token: 'bad' } });
    s.on('connect', () => print({ event: 'connect' }));
    s.on('connect_error', (err) => {
      print({ event: 'connect_error', message: err.message, data: err.data === undefined ? null : err.data });
      done();
    });
    s.connect();
  },

  unknownNamespace() {
    const s = manager().socket('/nope', { auth: { token: 'good' } });
    s.on('connect', () => print({ event: 'connect' }));
    s.on('connect_error', (err) => {
      print({ event: 'connect_error', message: err.message, data: err.data === undefined ? null : err.data });
      done();
    });
    s.connect();
  },

  clientDisconnect() {
    const m = manager();
    const s = m.socket('/', { auth: { token: 'good' } });
    s.on('connect', () => {
      print({ event: 'connect', id: s.id });
      s.disconnect();
      print({ event: 'disconnected' });
      // Keep the process (and so nothing else) alive briefly; the Java side waits on its record.
      setTimeout(done, 200);
    });
    s.connect();
  },

  serverDisconnect() {
    const s = manager().socket('/', { auth: { token: 'good' } });
    s.on('connect', () => s.emit('kick'));
    s.on('disconnect', (reason) => {
      print({ event: 'disconnect', reason, active: s.active });
      done();
    });
    s.connect();
  },

  heartbeat() {
    const m = openManager();
    const s = m.socket('/', { auth: { token: 'good' } });
    let pings = 0;
    m.on('ping', () => {
      if (++pings === 4) {
        print({ event: 'pings', pings, connected: s.connected, engineId: m.engine.id });
        done();
      }
    });
    s.on('disconnect', (reason) => print({ event: 'disconnect', reason }));
    s.connect();
  },

  noPong() {
    const m = openManager();
    const engine = m.engine;
    const send = engine._sendPacket.bind(engine);
    engine._sendPacket = (type, ...rest) => (type === 'pong' ? undefined : send(type, ...rest));
    const s = m.socket('/', { auth: { token: 'good' } });
    s.on('connect', () => print({ event: 'connect' }));
    s.on('disconnect', (reason, details) => {
      print({ event: 'disconnect', reason, code: details && details.context ? details.context.code : null });
      done();
    });
    s.connect();
  },

  connectTimeout() {
    // An Engine.IO connection that never joins a namespace.
    const m = openManager();
    const opened = Date.now();
    m.on('close', (reason, details) => {
      print({ event: 'close', reason, afterMs: Date.now() - opened,
        code: details && details.context ? details.context.code : null });
      done();
    });
  },

  invalidPacket() {
    const m = openManager();
    m.on('open', () => m.engine.write('garbage'));
    m.on('close', (reason, details) => {
      print({ event: 'close', reason, code: details && details.context ? details.context.code : null });
      done();
    });
  },

  tooBig() {
    const m = manager();
    const s = m.socket('/', { auth: { token: 'good' } });
    s.on('connect', () => s.emit('echo', 'x'.repeat(200000)));
    s.on('disconnect', (reason, details) => {
      const close = details && details.context;
      print({ event: 'disconnect', reason, code: close ? close.code : null,
        closeReason: close ? String(close.reason) : null });
      done();
    });
    s.connect();
  },

  reconnect() {
    let n = 0;
    const m = manager({ reconnection: true, reconnectionDelay: 100, reconnectionDelayMax: 200 });
    const s = m.socket('/', { auth: (cb) => cb({ token: 'good', n: ++n }) });
    let connects = 0;
    s.on('connect', () => {
      connects++;
      print({ event: 'connect', n, id: s.id });
      if (connects === 1) {
        m.engine.close(); // drop the transport; the manager reconnects and CONNECTs again
      } else {
        s.disconnect();
        done();
      }
    });
    s.on('disconnect', (reason) => print({ event: 'disconnect', reason, active: s.active }));
    s.connect();
  },
};

const run = scenarios[scenario];
if (!run) {
  print({ event: 'error', message: 'unknown scenario ' + scenario });
  process.exit(2);
}
run();
