// LLM providers, each chat's model and the usage totals (docs/WEB.md, docs/PROVIDERS.md): the
// provider settings in the sidebar (an API key is shown only as set or not set: the server never
// sends one back; Edit fills the form with a provider, its prices and sampling included), the
// model picker above the composer (models listed by the provider itself; the chat's sampling
// beside it, sampling.js), and the totals per provider and model with their cost.
import { state } from './state.js';
import { $, el, showError } from './dom.js';
import { request } from './server.js';
import { fillSampling, readSampling, showChatSampling, wireChatSampling } from './sampling.js';
import { dollars, turnCostNanos } from './stats.js';
import { showChatToolDeferral, wireChatToolDeferral } from './tool-deferral.js';

let providers = [];

function currentSession() {
  return state.sessions.find((s) => s._id === state.sessionId) || null;
}

/** After every (re)connect and every change: the providers, the picker, the totals. */
export async function refreshProviders() {
  if (!state.socket || !state.socket.connected) return;
  try {
    const reply = await request('listProviders', {});
    providers = reply.providers || [];
    renderProviders();
    sessionChanged();
    refreshUsage();
  } catch (e) {
    showError('provider-error', e.message);
  }
}

function renderProviders() {
  const ul = $('provider-list');
  ul.textContent = '';
  for (const p of providers) {
    const li = el('li', 'provider');
    li.dataset.providerId = p.id;
    li.appendChild(el('span', 'provider-name', p.name));
    li.appendChild(el('span', 'provider-kind', p.kind));
    li.appendChild(el('span', 'provider-key', p.apiKeySet ? 'key set' : 'no key'));
    li.title = p.baseUrl;
    if (!p.isDefault) {
      const e = el('button', 'link', 'Edit');
      e.type = 'button';
      e.addEventListener('click', () => edit(p));
      li.appendChild(e);
      const b = el('button', 'link', 'Remove');
      b.type = 'button';
      b.addEventListener('click', () => remove(p.id));
      li.appendChild(b);
    }
    ul.appendChild(li);
  }
}

/**
 * "model input output [cacheRead [cacheWrite]]" per line or after ";", in dollars per million
 * tokens; without cache prices the provider's published ratios apply.
 */
export function parsePrices(text) {
  const prices = [];
  for (const part of text.split(/[;\n]/)) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    if (!words.length) continue;
    const [modelId, ...numbers] = words;
    if (numbers.length < 2 || numbers.length > 4 || !numbers.every((n) => isFinite(n))) {
      throw new Error('write each price as "model input output", and if you like the cache '
        + 'read and write prices after them (dollars per million tokens), such as '
        + '"gpt-4o-mini 0.15 0.60" or "claude-sonnet-4-5 3 15 0.30 3.75"; "' + part.trim()
        + '" is not one');
    }
    const price = { modelId, inputPerMillion: Number(numbers[0]),
      outputPerMillion: Number(numbers[1]) };
    if (numbers.length > 2) price.cacheReadPerMillion = Number(numbers[2]);
    if (numbers.length > 3) price.cacheWritePerMillion = Number(numbers[3]);
    prices.push(price);
  }
  return prices;
}

/**
 * "model tokens" per line or after ";": each model's context window, which its turns' budget and
 * compaction fit instead of what the provider says.
 */
export function parseContextWindows(text) {
  const windows = [];
  for (const part of text.split(/[;\n]/)) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    if (!words.length) continue;
    const tokens = Number(String(words[1] || '').replace(/[_,]/g, ''));
    if (words.length !== 2 || !Number.isInteger(tokens) || tokens < 1024) {
      throw new Error('write each context window as "model tokens", 1024 tokens or more, such '
        + 'as "qwen3:8b 32768"; "' + part.trim() + '" is not one');
    }
    windows.push({ modelId: words[0], tokens });
  }
  return windows;
}

/** The provider form's three sampling fields, by key. */
function formSampling(f) {
  return { temperature: f.elements.temperature, topP: f.elements.topP, topK: f.elements.topK };
}

/** Fills the form with a provider to edit (its key stays unless a new one is typed). */
function edit(p) {
  const f = $('provider-form');
  f.elements.id.value = p.id;
  f.elements.name.value = p.name;
  f.elements.kind.value = p.kind;
  f.elements.baseUrl.value = p.baseUrl;
  f.elements.apiKey.value = '';
  f.elements.apiKey.placeholder = p.apiKeySet ? 'API key (blank keeps it)' : 'API key (optional)';
  f.elements.clearApiKey.checked = false;
  f.querySelector('.clear-key').hidden = !p.apiKeySet;
  f.elements.prices.value = (p.prices || []).map((x) => [x.modelId, x.inputPerMillion,
    x.outputPerMillion, x.cacheReadPerMillion, x.cacheWritePerMillion]
    .filter((v, i) => v != null && !(i === 4 && x.cacheReadPerMillion == null)).join(' '))
    .join('; ');
  f.elements.contextWindows.value = Object.entries(p.contextWindows || {})
    .map(([model, tokens]) => model + ' ' + tokens).join('; ');
  fillSampling(formSampling(f), p.sampling);
  f.querySelector('button[type=submit]').textContent = 'Save changes';
  $('provider-cancel').hidden = false;
  f.elements.name.focus();
}

function endEdit() {
  const f = $('provider-form');
  f.reset();
  f.elements.id.value = '';
  f.elements.apiKey.placeholder = 'API key (optional)';
  f.querySelector('.clear-key').hidden = true;
  f.querySelector('button[type=submit]').textContent = 'Save provider';
  $('provider-cancel').hidden = true;
}

function renderPicker() {
  const s = currentSession();
  $('model-picker').hidden = !s;
  const sel = $('provider-select');
  sel.textContent = '';
  for (const p of providers) {
    const o = el('option', null, p.isDefault ? p.name : p.name + ' (' + p.kind + ')');
    o.value = p.id;
    sel.appendChild(o);
  }
  sel.value = (s && s.providerId && providers.some((p) => p.id === s.providerId))
    ? s.providerId : 'default';
  const p = providers.find((x) => x.id === sel.value);
  $('model-input').value = (s && s.modelId) || '';
  $('model-input').placeholder = p && p.defaultModel ? p.defaultModel : 'pick a model';
  renderSampling();
}

/** The chat's own sampling, and what it inherits from the chosen provider and the server. */
function renderSampling() {
  showChatToolDeferral(currentSession());
  showChatSampling(currentSession(), providers.find((x) => x.id === $('provider-select').value),
    providers.find((x) => x.isDefault));
}

/** The watched chat changed: show its provider and model. */
export function sessionChanged() {
  renderPicker();
  if (currentSession() && providers.length) loadModels();
}

async function loadModels() {
  const providerId = $('provider-select').value;
  showError('model-error', '');
  $('model-count').textContent = 'listing models…';
  try {
    const reply = await request('listModels', { providerId });
    if ($('provider-select').value !== providerId) return;
    const list = $('model-options');
    list.textContent = '';
    for (const m of reply.models || []) {
      const o = el('option');
      o.value = m;
      list.appendChild(o);
    }
    const n = (reply.models || []).length;
    $('model-count').textContent = n + (n === 1 ? ' model' : ' models');
  } catch (e) {
    $('model-count').textContent = '';
    showError('model-error', e.message);
  }
}

async function choose() {
  const s = currentSession();
  if (!s) return;
  const payload = { sessionId: s._id, providerId: $('provider-select').value };
  const model = $('model-input').value.trim();
  if (model) payload.modelId = model;
  try {
    const reply = await request('setSessionModel', payload);
    Object.assign(s, reply.session);
    showError('model-error', '');
    renderSampling();
    $('model-picker').dataset.chosen = (reply.session.providerId || 'default') + '/'
      + (reply.session.modelId || '');
  } catch (e) {
    showError('model-error', e.message);
  }
}

async function remove(providerId) {
  try {
    await request('deleteProvider', { providerId });
    await refreshProviders();
  } catch (e) {
    showError('provider-error', e.message);
  }
}

function count(n) {
  return Number(n || 0).toLocaleString('en');
}

const cost = dollars;

/**
 * A turn's cost at its model's price now ({providerId, modelId} of the turn); null when the
 * model has no price (the server's default provider has none).
 */
export function turnCost(model, stats) {
  if (!model || !stats) return null;
  const p = providers.find((x) => x.id === model.providerId);
  const price = p && (p.prices || []).find((x) => x.modelId === model.modelId);
  return price ? turnCostNanos(stats, price, p.kind) : null;
}

/** The totals: one row per provider and model, and the user's total. */
export async function refreshUsage() {
  try {
    const u = await request('getUsage', {});
    const tbody = $('usage-rows');
    tbody.textContent = '';
    const rows = (u.byModel || []).concat(u.total ? [u.total] : []);
    for (const r of rows) {
      const tr = el('tr', r.providerId === '*' ? 'usage-total' : 'usage-row');
      const p = providers.find((x) => x.id === r.providerId);
      const name = r.providerId === '*' ? 'Total' : (p ? p.name : r.providerId) + ' · ' + r.modelId;
      for (const v of [name, count(r.turns), count(r.promptTokens), count(r.completionTokens),
        count(r.cacheReadTokens), count(r.reasoningTokens), count(r.errors),
        cost(r.costNanos)]) {
        tr.appendChild(el('td', null, v));
      }
      tbody.appendChild(tr);
    }
  } catch (e) {
    // the next refresh tries again
  }
}

export function wireProviders() {
  $('provider-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const payload = {
      name: f.elements.name.value.trim(),
      kind: f.elements.kind.value,
      baseUrl: f.elements.baseUrl.value.trim(),
    };
    const key = f.elements.apiKey.value;
    if (key) payload.apiKey = key;
    if (f.elements.id.value) {
      payload.id = f.elements.id.value;
      if (f.elements.clearApiKey.checked) payload.clearApiKey = true;
    }
    showError('provider-error', '');
    try {
      // editing sends the prices as they stand (empty: none); a new provider only if typed
      const prices = parsePrices(f.elements.prices.value);
      if (payload.id || prices.length) payload.prices = prices;
      const windows = parseContextWindows(f.elements.contextWindows.value);
      if (payload.id || windows.length) payload.contextWindows = windows;
      const sampling = readSampling(formSampling(f)); // likewise: editing sends it as it stands
      if (payload.id || Object.keys(sampling).length) payload.sampling = sampling;
      await request('saveProvider', payload);
      endEdit();
      await refreshProviders();
    } catch (e) {
      showError('provider-error', e.message);
    }
  });
  $('provider-cancel').addEventListener('click', endEdit);
  $('provider-select').addEventListener('change', async () => {
    $('model-input').value = '';
    $('model-options').textContent = '';
    await choose();
    await loadModels();
  });
  $('model-input').addEventListener('change', choose);
  wireChatSampling(currentSession, renderSampling);
  wireChatToolDeferral(currentSession, renderSampling);
  $('usage-panel').addEventListener('toggle', refreshUsage);
  setInterval(() => {
    if ($('usage-panel').open && state.socket && state.socket.connected) refreshUsage();
  }, 10000);
}
