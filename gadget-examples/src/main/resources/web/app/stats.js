// What a turn's footer says about its cost: tokens, tools (and how many were loaded and
// deferred), time, Ollama's durations, the drone
// crashes it was retried after, the share of its input the provider served from its prompt cache
// and what it cost (TurnStats in docs/MODEL.md, prices in docs/PROVIDERS.md). Pure formatting.

function secs(ms) {
  return (ms / 1000).toFixed(1) + ' s';
}

/** The share of the prompt read from the provider's cache, in whole percent; null: none. */
export function cacheHitPercent(s) {
  if (!s || !s.cacheReadTokens || !s.promptTokens) return null;
  return Math.min(100, Math.round((100 * s.cacheReadTokens) / s.promptTokens));
}

/**
 * A provider's cache prices over its input price when a price gives none: the same table as
 * ModelPrice.CacheRatios.of on the server (Anthropic 0.1 read, 1.25 write; OpenAI 0.1 for gpt-5
 * and DeepSeek, 0.25 for gpt-4.1, o3 and o4, 0.5 otherwise; others at the input price).
 */
export function cacheRatios(kind, modelId) {
  const m = String(modelId || '').toLowerCase().split('/').pop();
  if (kind === 'anthropic') return { read: 0.1, write: 1.25 };
  if (kind === 'openai' || kind === 'openai-responses' || kind === 'llamacpp') {
    if (m.startsWith('gpt-5') || m.startsWith('deepseek')) return { read: 0.1, write: 1 };
    if (m.startsWith('gpt-4.1') || m.startsWith('o3') || m.startsWith('o4')) {
      return { read: 0.25, write: 1 };
    }
    return { read: 0.5, write: 1 };
  }
  return { read: 1, write: 1 };
}

/** A turn's cost in nano-dollars at a model's price, as the server adds it to the totals. */
export function turnCostNanos(s, price, kind) {
  if (!s || !price) return null;
  const r = cacheRatios(kind, price.modelId);
  const prompt = s.promptTokens || 0;
  const read = Math.max(0, Math.min(s.cacheReadTokens || 0, prompt));
  const write = Math.max(0, Math.min(s.cacheWriteTokens || 0, prompt - read));
  const readPrice = price.cacheReadPerMillion != null ? price.cacheReadPerMillion
    : price.inputPerMillion * r.read;
  const writePrice = price.cacheWritePerMillion != null ? price.cacheWritePerMillion
    : price.inputPerMillion * r.write;
  return Math.round(((prompt - read - write) * price.inputPerMillion + read * readPrice
    + write * writePrice + (s.completionTokens || 0) * price.outputPerMillion) * 1000);
}

/** Dollars from nano-dollars: cents and up to four places, less than a cent to six. */
export function dollars(nanos) {
  return nanos ? '$' + (nanos / 1e9).toFixed(nanos < 1e7 ? 6 : 4) : '—';
}

/** The footer's parts; {@code costNanos}: the turn's cost when its model has a price. */
export function statsParts(s, costNanos) {
  if (!s) return [];
  const parts = [];
  if (s.toolCallCount) parts.push(s.toolCallCount + ' tool call' + (s.toolCallCount === 1 ? '' : 's'));
  // deferred tools (TOOL-SEARCH.md, "Many tools"): how many the last model call had, how many more
  if (s.toolsDeferred) parts.push(s.toolsLoaded + ' tools loaded, ' + s.toolsDeferred + ' deferred');
  if (s.completionTokens) parts.push(s.completionTokens + ' tokens');
  const hit = cacheHitPercent(s);
  if (hit != null) parts.push('cache ' + hit + '%');
  if (costNanos) parts.push(dollars(costNanos));
  if (s.durationMs) parts.push(secs(s.durationMs));
  if (s.loadDurationMs != null) parts.push('load ' + secs(s.loadDurationMs));
  if (s.evalDurationMs != null) parts.push('eval ' + secs(s.evalDurationMs));
  if (s.crashRetries) {
    parts.push('retried after ' + s.crashRetries + ' drone crash' + (s.crashRetries === 1 ? '' : 'es'));
  }
  return parts;
}
