'use strict';
// Shared helpers for the interop scripts: one JSON object per stdout line, a hard deadline.

function print(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function deadline(ms) {
  const t = setTimeout(() => {
    print({ event: 'deadline', ms });
    process.exit(3);
  }, ms);
  t.unref();
}

// Buffers as base64 so the Java side can compare bytes.
function describe(value) {
  if (Buffer.isBuffer(value)) return { base64: value.toString('base64') };
  if (value instanceof ArrayBuffer) return { base64: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(describe);
  if (value && typeof value === 'object') {
    const out = {};
    for (const k of Object.keys(value)) out[k] = describe(value[k]);
    return out;
  }
  return value;
}

process.on('uncaughtException', (err) => {
  print({ event: 'error', message: String(err && err.stack || err) });
  process.exit(4);
});

module.exports = { print, deadline, describe };
