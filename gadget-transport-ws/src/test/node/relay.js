'use strict';
// The Node side of LiveBenchmark (gadget-examples): a stock socket.io 4.8 server that relays a
// drone's stream to the pages watching its chat session, as Gadget's server does, with no store
// and no aggregation. Drones connect on /drone, pages on /; both say their user in auth.user.
// Usage: node relay.js. Prints {"port":N} once listening; exits when stdin closes.
const http = require('http');
const crypto = require('crypto');
const { Server } = require('socket.io');
const { answerSessionRequests } = require('./relay-pages');

const httpServer = http.createServer();
const io = new Server(httpServer, { maxHttpBufferSize: 1e6 });
const pages = io.of('/');
const dronesOf = new Map(); // user -> drone socket
const sessionOf = new Map(); // turnId -> sessionId

io.of('/drone').on('connection', (drone) => {
  const user = String(drone.handshake.auth.user);
  dronesOf.set(user, drone);
  drone.on('disconnect', () => { if (dronesOf.get(user) === drone) dronesOf.delete(user); });
  for (const event of ['thinking', 'response', 'toolCall']) {
    drone.on(event, (payload) => {
      const session = sessionOf.get(payload.turnId);
      if (session) pages.to(session).emit(event, payload);
    });
  }
  drone.on('workOrderComplete', (payload, ack) => {
    const session = sessionOf.get(payload.turnId);
    sessionOf.delete(payload.turnId);
    if (session) pages.to(session).emit('workOrderComplete', payload);
    if (typeof ack === 'function') ack({ ok: true });
  });
});

pages.on('connection', (page) => {
  const user = String(page.handshake.auth.user);
  answerSessionRequests(page);
  page.on('submitPrompt', (req, ack) => {
    const drone = dronesOf.get(user);
    if (!drone) return ack({ error: 'no drone' });
    const turnId = crypto.randomUUID();
    sessionOf.set(turnId, req.sessionId);
    drone.emit('processWorkOrder', {
      workOrder: { _id: turnId, chatSession: { _id: req.sessionId }, chatTurn: { _id: turnId, prompt: req.prompt } },
      firstSeq: 0,
      resume: false,
    }, () => {});
    ack({ turnId });
  });
});

httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: httpServer.address().port }) + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
