'use strict';
// A stock socket.io 4.8 server for the Gadget client to connect to.
// Usage: node server.js [pingInterval] [pingTimeout] [maxHttpBufferSize]
// Prints {"event":"listening","port":N} first, then one JSON object per line for what it sees.
const http = require('http');
const { Server } = require('socket.io');
const { print, deadline, describe } = require('./lib');

const [pingInterval = 25000, pingTimeout = 20000, maxHttpBufferSize = 1e6] =
  process.argv.slice(2).map(Number);
deadline(60000);

const httpServer = http.createServer();
const io = new Server(httpServer, { pingInterval, pingTimeout, maxHttpBufferSize });

function auth(socket, next) {
  if (socket.handshake.auth && socket.handshake.auth.token === 'bad') {
    const err = new Error('not authorized');
    err.data = { reason: 'bad token' };
    return next(err);
  }
  next();
}

function setup(nsp) {
  nsp.use(auth);
  nsp.on('connection', (socket) => {
    const name = nsp.name;
    print({ event: 'connection', nsp: name, id: socket.id, engineId: socket.conn.id, auth: socket.handshake.auth });
    socket.conn.on('packet', (p) => { if (p.type === 'pong') print({ event: 'pong', nsp: name }); });
    socket.on('disconnect', (reason) => print({ event: 'disconnect', nsp: name, id: socket.id, reason }));
    socket.on('echo', (...args) => {
      print({ event: 'echo', nsp: name, args });
      socket.emit('echoed', ...args);
    });
    socket.on('sum', (a, b, cb) => cb(a + b));
    socket.on('bin', (...args) => {
      const cb = args.pop();
      print({ event: 'bin', nsp: name, args: describe(args) });
      cb(...args);
      socket.emit('bin-back', ...args);
    });
    socket.on('ask', async () => {
      try {
        const answer = await socket.timeout(5000).emitWithAck('question', 21);
        print({ event: 'answer', answer });
      } catch (e) {
        print({ event: 'answer-error', message: e.message });
      }
    });
    socket.on('kick', () => socket.disconnect());
    socket.on('drop', () => socket.conn.close());
    socket.on('stop-pinging', () => {
      // Go silent: no more pings, and do not time the client out ourselves.
      clearTimeout(socket.conn.pingIntervalTimer);
      clearTimeout(socket.conn.pingTimeoutTimer);
      socket.conn.pingIntervalTimer = null;
      socket.conn.pingTimeoutTimer = null;
      socket.conn.schedulePing = () => {};
      socket.conn.resetPingTimeout = () => {};
      print({ event: 'silent' });
    });
    socket.on('send-garbage', () => socket.conn.write('garbage'));
  });
}

setup(io.of('/'));
setup(io.of('/admin'));

httpServer.listen(0, '127.0.0.1', () => {
  print({ event: 'listening', port: httpServer.address().port });
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
