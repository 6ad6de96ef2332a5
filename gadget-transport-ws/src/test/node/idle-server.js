'use strict';
// A stock socket.io server that only holds connections (default heartbeat), for
// IdleCpuBenchmark. Prints {"event":"listening","port":N}; ends when stdin closes.
const http = require('http');
const { Server } = require('socket.io');
const { print } = require('./lib');

const httpServer = http.createServer();
new Server(httpServer, { pingInterval: 25000, pingTimeout: 20000 });
httpServer.listen(0, '127.0.0.1', () => print({ event: 'listening', port: httpServer.address().port }));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
