'use strict';
// Idle Engine.IO clients on raw TCP sockets, for IdleCpuBenchmark: each upgrades to a WebSocket,
// joins "/" and then only answers pings. Cheap on purpose (no socket.io-client): the measured
// side is the server. Usage: node idle-clients.js port count
// Prints {"event":"ready","connected":N} when every client has joined; ends when stdin closes.
const net = require('net');
const { print } = require('./lib');

const [port, count] = process.argv.slice(2).map(Number);
const PATH = '/socket.io/?EIO=4&transport=websocket';
let joined = 0;
let pongs = 0;

function masked(text) {
  const payload = Buffer.from(text);
  const frame = Buffer.alloc(6 + payload.length);
  frame[0] = 0x81;
  frame[1] = 0x80 | payload.length; // short frames only
  const mask = [1, 2, 3, 4];
  for (let i = 0; i < 4; i++) frame[2 + i] = mask[i];
  for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i] ^ mask[i % 4];
  return frame;
}

function open(done) {
  const s = net.connect(port, '127.0.0.1');
  let buf = Buffer.alloc(0);
  let upgraded = false;
  let counted = false;
  s.setNoDelay(true);
  s.on('connect', () => s.write('GET ' + PATH + ' HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n'
    + 'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'));
  s.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      upgraded = true;
      buf = buf.subarray(end + 4);
    }
    for (;;) {
      if (buf.length < 2) return;
      let len = buf[1] & 0x7f;
      let at = 2;
      if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); at = 4; }
      else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); at = 10; }
      if (buf.length < at + len) return;
      const text = buf.toString('utf8', at, at + len);
      buf = buf.subarray(at + len);
      if (text === '2') { s.write(masked('3')); pongs++; }
      else if (text[0] === '0') s.write(masked('40'));
      else if (text.startsWith('40') && !counted) { counted = true; joined++; done(); }
    }
  });
  s.on('error', (e) => print({ event: 'error', message: String(e) }));
  s.on('close', () => { if (counted) { joined--; print({ event: 'closed', joined }); } });
}

// At most 200 handshakes in flight, so the server's accept backlog never overflows.
let started = 0;
let inFlight = 0;
function more() {
  while (inFlight < 200 && started < count) {
    started++;
    inFlight++;
    open(() => {
      inFlight--;
      if (joined === count) print({ event: 'ready', connected: joined });
      more();
    });
  }
}
more();
setInterval(() => print({ event: 'pongs', pongs, joined }), 30000).unref();
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
