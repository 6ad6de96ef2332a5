'use strict';
// Installs the MCP servers with `npm ci` from package-lock.json, unless node_modules already holds
// exactly that lock file's install (a stamp with the lock file's SHA-256). Run by the Maven build
// in generate-test-resources.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { execSync } = require('child_process');

const dir = __dirname;
const lock = fs.readFileSync(path.join(dir, 'package-lock.json'));
const hash = crypto.createHash('sha256').update(lock).digest('hex');
const stamp = path.join(dir, 'node_modules', '.gadget-lock-sha256');

if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8').trim() === hash) {
  console.log('MCP servers up to date (' + hash.slice(0, 12) + ')');
  process.exit(0);
}
console.log('Installing the MCP servers: npm ci');
execSync('npm ci --no-audit --no-fund --prefer-offline', { cwd: dir, stdio: 'inherit' });
fs.writeFileSync(stamp, hash + '\n');
