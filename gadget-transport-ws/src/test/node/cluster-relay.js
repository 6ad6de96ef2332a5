'use strict';
// The Node side of ClusterBenchmark (gadget-examples): relay.js's stock socket.io 4.8 relay as one
// node of a cluster, with the stock @socket.io/redis-streams-adapter on a shared Redis (node-redis
// client), so that a drone on one node reaches the pages watching its chat on every node. No store,
// no aggregation. A prompt goes to the user's drone on whichever node holds it (a room per user,
// broadcast through the adapter); a turn's id carries its chat's id, so the drone's node knows the
// room to send its events to without asking the other nodes.
// Usage: node cluster-relay.js REDIS_URL. Prints {"port":N} once listening; exits when stdin closes.
const http = require('http');
const crypto = require('crypto');
const { Server } = require('socket.io');
const { answerSessionRequests } = require('./relay-pages');
const { createClient } = require('redis');
const { createAdapter } = require('@socket.io/redis-streams-adapter');

async function main() {
  const redis = createClient({ url: process.argv[2] });
  redis.on('error', (e) => process.stderr.write('redis: ' + e.message + '\n'));
  await redis.connect();
  const httpServer = http.createServer();
  const io = new Server(httpServer, { maxHttpBufferSize: 1e6, adapter: createAdapter(redis) });
  const pages = io.of('/');
  const drones = io.of('/drone');
  const sessionOf = (turnId) => turnId.slice(0, turnId.indexOf('|'));

  drones.on('connection', (drone) => {
    drone.join('user:' + String(drone.handshake.auth.user));
    for (const event of ['thinking', 'response', 'toolCall']) {
      drone.on(event, (payload) => pages.to(sessionOf(payload.turnId)).emit(event, payload));
    }
    drone.on('workOrderComplete', (payload, ack) => {
      pages.to(sessionOf(payload.turnId)).emit('workOrderComplete', payload);
      if (typeof ack === 'function') ack({ ok: true });
    });
  });

  pages.on('connection', (page) => {
    const user = String(page.handshake.auth.user);
    answerSessionRequests(page);
    page.on('submitPrompt', (req, ack) => {
      const turnId = req.sessionId + '|' + crypto.randomUUID();
      drones.to('user:' + user).emit('processWorkOrder', {
        workOrder: { _id: turnId, chatSession: { _id: req.sessionId }, chatTurn: { _id: turnId, prompt: req.prompt } },
        firstSeq: 0,
        resume: false,
      });
      ack({ turnId });
    });
  });

  httpServer.listen(0, '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ port: httpServer.address().port }) + '\n');
  });
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
