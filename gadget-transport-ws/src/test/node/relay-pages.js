'use strict';
// What relay.js and cluster-relay.js answer a page besides a prompt: watching and leaving a chat
// session (its room) and creating one; no store behind them.
const crypto = require('crypto');

function answerSessionRequests(page) {
  page.on('watchSession', (req, ack) => {
    page.join(req.sessionId);
    ack({ sessionId: req.sessionId, turns: [], live: [] });
  });
  page.on('unwatchSession', (req, ack) => {
    page.leave(req.sessionId);
    ack({ ok: true });
  });
  page.on('createSession', (req, ack) => {
    ack({ session: { _id: crypto.randomUUID(), projectId: req.projectId, name: req.name } });
  });
}

module.exports = { answerSessionRequests };
