'use strict';
// Installs the Node packages of the current directory with `npm ci` from its package-lock.json,
// unless node_modules already holds exactly that lock file's install (a stamp with the lock
// file's SHA-256). The Maven build runs it in each directory with a committed lock file (the
// Socket.IO interop harness, the page's libraries, the browser tests' driver, the MCP servers).
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { execSync } = require('child_process');

const dir = process.cwd();
const name = path.relative(path.join(__dirname, '..'), dir);
const lock = fs.readFileSync(path.join(dir, 'package-lock.json'));
const hash = crypto.createHash('sha256').update(lock).digest('hex');
const stamp = path.join(dir, 'node_modules', '.gadget-lock-sha256');

if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8').trim() === hash) {
  console.log(name + ': node_modules up to date (' + hash.slice(0, 12) + ')');
  process.exit(0);
}
console.log(name + ': npm ci');
execSync('npm ci --no-audit --no-fund --prefer-offline', { cwd: dir, stdio: 'inherit' });
fs.writeFileSync(stamp, hash + '\n');
