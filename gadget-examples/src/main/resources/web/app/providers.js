// LLM providers, each chat's model and the usage totals (docs/WEB.md, docs/PROVIDERS.md): the
// provider settings in the sidebar (an API key is shown only as set or not set: the server never
// sends one back), the model picker above the composer (models listed by the provider itself),
// and the totals per provider and model.
import { state } from './state.js';
import { $, el, showError } from './dom.js';
import { request } from './server.js';

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
      const edit = el('button', 'link', 'Prices');
      edit.type = 'button';
      edit.addEventListener('click', () => togglePrices(li, p));
      li.appendChild(edit);
      const b = el('button', 'link', 'Remove');
      b.type = 'button';
      b.addEventListener('click', () => remove(p.id));
      li.appendChild(b);
    }
    ul.appendChild(li);
  }
}

/** "model input output" per line or after ";", in dollars per million tokens. */
export function parsePrices(text) {
  const prices = [];
  for (const part of text.split(/[;\n]/)) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    if (!words.length) continue;
    const [modelId, input, output] = words;
    if (words.length !== 3 || !isFinite(input) || !isFinite(output)) {
      throw new Error('write each price as "model input output" (dollars per million tokens), '
        + 'such as "gpt-4o-mini 0.15 0.60"; "' + part.trim() + '" is not one');
    }
    prices.push({ modelId, inputPerMillion: Number(input), outputPerMillion: Number(output) });
  }
  return prices;
}

function togglePrices(li, p) {
  const open = li.querySelector('form.prices');
  if (open) { open.remove(); return; }
  const form = el('form', 'prices');
  const label = el('label', null, 'Prices, dollars per million tokens (model input output; …)');
  const input = el('input');
  input.name = 'prices';
  input.value = (p.prices || []).map((x) => x.modelId + ' ' + x.inputPerMillion + ' '
    + x.outputPerMillion).join('; ');
  input.placeholder = 'gpt-4o-mini 0.15 0.60';
  label.appendChild(input);
  form.appendChild(label);
  const save = el('button', null, 'Save prices');
  save.type = 'submit';
  form.appendChild(save);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError('provider-error', '');
    try {
      await request('saveProvider', { id: p.id, name: p.name, kind: p.kind, baseUrl: p.baseUrl,
        prices: parsePrices(input.value) });
      await refreshProviders();
    } catch (e) {
      showError('provider-error', e.message);
    }
  });
  li.appendChild(form);
  input.focus();
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
    $('model-count').textContent = (reply.models || []).length + ' models';
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

/** Dollars from nano-dollars: cents and up to four places, less than a cent to six. */
function cost(nanos) {
  return nanos ? '$' + (nanos / 1e9).toFixed(nanos < 1e7 ? 6 : 4) : '—';
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
        count(r.reasoningTokens), count(r.errors), cost(r.costNanos)]) {
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
    showError('provider-error', '');
    try {
      await request('saveProvider', payload);
      f.reset();
      await refreshProviders();
    } catch (e) {
      showError('provider-error', e.message);
    }
  });
  $('provider-select').addEventListener('change', async () => {
    $('model-input').value = '';
    $('model-options').textContent = '';
    await choose();
    await loadModels();
  });
  $('model-input').addEventListener('change', choose);
  $('usage-panel').addEventListener('toggle', refreshUsage);
  setInterval(() => {
    if ($('usage-panel').open && state.socket && state.socket.connected) refreshUsage();
  }, 10000);
}
