// What a turn's footer says about its cost: tokens, tools, time, Ollama's durations and the
// drone crashes it was retried after (TurnStats in docs/MODEL.md). Pure formatting.

function secs(ms) {
  return (ms / 1000).toFixed(1) + ' s';
}

export function statsParts(s) {
  if (!s) return [];
  const parts = [];
  if (s.toolCallCount) parts.push(s.toolCallCount + ' tool call' + (s.toolCallCount === 1 ? '' : 's'));
  if (s.completionTokens) parts.push(s.completionTokens + ' tokens');
  if (s.durationMs) parts.push(secs(s.durationMs));
  if (s.loadDurationMs != null) parts.push('load ' + secs(s.loadDurationMs));
  if (s.evalDurationMs != null) parts.push('eval ' + secs(s.evalDurationMs));
  if (s.crashRetries) {
    parts.push('retried after ' + s.crashRetries + ' drone crash' + (s.crashRetries === 1 ? '' : 'es'));
  }
  return parts;
}
