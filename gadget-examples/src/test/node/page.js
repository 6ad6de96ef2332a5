'use strict';
// Drives the Gadget web page in headless Chromium ($GADGET_CHROMIUM, which BrowserHarness.java
// sets) with playwright-core; never downloads a browser. Started by the JUnit browser tests:
//
//   node page.js '<json>'   {"url", "scenario", "prompt"?, "length"?, "screenshot"?,
//                            "timeoutMs"?, "ignoreResourceErrors"?}
//
// and prints one JSON object per line on stdout: {"type":"step",...} while it works, then
// exactly one {"type":"result",...} or {"type":"error","message"}. Exit code 0 / 1.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.GADGET_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function step(name, extra) {
  emit(Object.assign({ type: 'step', step: name }, extra || {}));
}

/** Records, after every DOM change under #turns, each block's element identity and text. */
function installRecorder() {
  window.__samples = [];
  const ids = new WeakMap();
  let next = 0;
  const snap = () => Array.from(document.querySelectorAll('#turns .block')).map((b) => {
    if (!ids.has(b)) ids.set(b, ++next);
    return { id: ids.get(b), mode: b.dataset.mode, len: b.textContent.length };
  });
  window.__blockIds = () => snap();
  new MutationObserver(() => window.__samples.push(snap()))
    .observe(document.getElementById('turns'), { subtree: true, childList: true, characterData: true });
}

async function ready(page, timeout) {
  await page.waitForSelector('#app:not([hidden])', { timeout });
  await page.waitForSelector('#conn[data-state="connected"]', { timeout });
  await page.waitForFunction(() => document.querySelectorAll('#session-list .session.active').length === 1,
    null, { timeout });
  await page.waitForSelector('#send:not([disabled])', { timeout });
}

/** Waits until the last turn has ended and the page has compared it with the store. */
async function settled(page, timeout) {
  await page.waitForFunction(() => {
    const t = document.querySelectorAll('#turns .turn');
    const last = t[t.length - 1];
    return last && last.dataset.status !== 'processing' && last.dataset.reconciled === 'true';
  }, null, { timeout });
  return page.evaluate(() => {
    const t = document.querySelectorAll('#turns .turn');
    return t[t.length - 1].dataset.status;
  });
}

/** Records each workspace mode the drone list shows (its .drone-mode badge), in order. */
function installModeRecorder() {
  window.__modes = [];
  const list = document.getElementById('drone-list');
  const record = () => {
    const badge = list.querySelector('.drone-mode');
    const mode = badge ? badge.textContent : null;
    if (mode && window.__modes[window.__modes.length - 1] !== mode) window.__modes.push(mode);
  };
  record();
  new MutationObserver(record).observe(list, { childList: true, subtree: true, characterData: true });
}

async function submit(page, prompt, timeout) {
  const before = await page.locator('#turns .turn').count();
  await page.fill('#prompt', prompt);
  await page.press('#prompt', 'Enter');
  await page.waitForFunction((n) => document.querySelectorAll('#turns .turn').length > n, before, { timeout });
  return settled(page, timeout);
}

const scenarios = {
  /**
   * A turn's changes: the diff block (coloured, per file, collapsible), Undo of a later turn,
   * then Commit and Push of the chat's changes.
   */
  async changes(page, cfg) {
    await ready(page, cfg.timeoutMs);
    const t = cfg.timeoutMs;
    const first = await submit(page, cfg.prompt, t);
    await page.waitForSelector('#turns .turn:nth-of-type(1) .block.diff', { timeout: t });
    const diff = await page.evaluate(() => {
      const d = document.querySelector('#turns .turn .block.diff');
      const color = (sel) => { const e = d.querySelector(sel); return e ? getComputedStyle(e).color : null; };
      return {
        files: Array.from(d.querySelectorAll('.diff-file')).map((f) => f.dataset.change + ' ' + f.dataset.path),
        added: Array.from(d.querySelectorAll('.line.add')).map((e) => e.textContent),
        removed: Array.from(d.querySelectorAll('.line.del')).map((e) => e.textContent),
        addColor: color('.line.add'), delColor: color('.line.del'), ctxColor: color('.line.ctx'),
        title: d.querySelector('.diff-title').textContent,
      };
    });
    step('diff', diff);
    const summary = page.locator('#turns .turn >> nth=0').locator('.diff-file summary').first();
    await summary.click();
    const collapsed = await page.evaluate(() => !document.querySelector('#turns .diff-file').open);
    await summary.click();
    const second = await submit(page, cfg.prompt2, t);
    const turn2 = page.locator('#turns .turn >> nth=1');
    await turn2.locator('.diff-undo').click();
    await page.waitForFunction(() => {
      const t2 = document.querySelectorAll('#turns .turn')[1];
      return t2.querySelectorAll('.block.diff').length === 2
        && t2.querySelector('.diff-undo').textContent === 'Undone';
    }, null, { timeout: t });
    const undone = await turn2.locator('.block.diff >> nth=1').textContent();
    step('undone');
    const turn1 = page.locator('#turns .turn >> nth=0');
    await turn1.locator('.diff-message').fill(cfg.message);
    await turn1.locator('.diff-commit').click();
    await page.waitForFunction(() => /^Committed /.test(
      document.querySelector('#turns .turn .diff-result').textContent), null, { timeout: t });
    const committed = await turn1.locator('.diff-result').textContent();
    await turn1.locator('.diff-push').click();
    await page.waitForFunction(() => /^Pushed /.test(
      document.querySelector('#turns .turn .diff-result').textContent), null, { timeout: t });
    const pushed = await turn1.locator('.diff-result').textContent();
    await page.reload();
    await ready(page, t);
    await page.waitForFunction(() => document.querySelectorAll('#turns .block.diff').length === 3,
      null, { timeout: t });
    const afterReload = await page.evaluate(() => Array.from(document.querySelectorAll('#turns .block.diff'))
      .map((d) => d.querySelector('.diff-title').textContent));
    return { first, second, diff, collapsed, undone, committed, pushed, afterReload };
  },

  /** A prompt streams into blocks: samples of every DOM change, then the final blocks. */
  async stream(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await page.evaluate(installRecorder);
    await page.evaluate(installModeRecorder);
    step('ready');
    const status = await submit(page, cfg.prompt, cfg.timeoutMs);
    step('finished', { status });
    // the drone's workspace mode, as the sidebar shows it, goes back to idle after the turn
    await page.waitForFunction(() => window.__modes[window.__modes.length - 1] === 'idle',
      null, { timeout: cfg.timeoutMs }).catch(() => {});
    const modes = await page.evaluate(() => window.__modes);
    const samples = await page.evaluate(() => window.__samples);
    const finalIds = await page.evaluate(() => window.__blockIds());
    const blocks = await page.evaluate(() => window.gadgetPage.blocks());
    // how the blocks look (seed 003's rendering): the first thinking block, the last reply, the
    // first tool block
    const looks = await page.evaluate(() => {
      const css = (e) => getComputedStyle(e);
      const thinking = document.querySelector('#turns .block.thinking');
      const thought = thinking && thinking.querySelector('.thinking-text');
      const replies = document.querySelectorAll('#turns .block.responding');
      const reply = replies[replies.length - 1];
      const tool = document.querySelector('#turns .block.tool');
      if (!thinking || !reply || !tool) return null; // a turn without all three: nothing to say
      return {
        thinkingLabel: thinking.querySelector('summary').textContent,
        thinkingFont: css(thought).fontFamily,
        thinkingColor: css(thought).color,
        replyColor: css(reply).color,
        replyBreaks: reply.querySelectorAll('p br').length,
        toolSummaryHeight: tool.querySelector('summary').getBoundingClientRect().height,
        toolNameHeight: tool.querySelector('.tool-name').getBoundingClientRect().height,
        toolName: tool.querySelector('.tool-name').textContent,
        toolDot: tool.querySelector('summary .dot').className,
        toolStatus: tool.querySelector('.tool-status').textContent,
      };
    });
    return { status, samples, finalIds, blocks, modes, looks };
  },

  /** The session's blocks, then the same after a reload (from the store). */
  async reload(page, cfg) {
    await ready(page, cfg.timeoutMs);
    const status = await submit(page, cfg.prompt, cfg.timeoutMs);
    const before = await page.evaluate(() => window.gadgetPage.blocks());
    step('reloading', { count: before.length });
    await page.reload();
    await ready(page, cfg.timeoutMs);
    await page.waitForFunction((n) => document.querySelectorAll('#turns .block').length >= n,
      before.length, { timeout: cfg.timeoutMs });
    const after = await page.evaluate(() => window.gadgetPage.blocks());
    const url = page.url();
    return { status, before, after, url };
  },

  /** Hostile Markdown in the reply: nothing may execute, no dangerous markup may remain. */
  async hostile(page, cfg) {
    await ready(page, cfg.timeoutMs);
    const status = await submit(page, cfg.prompt, cfg.timeoutMs);
    // Positive control, first: an unsanitized handler does run on this page. Once it has
    // fired, the reply's own <img src=x> (loaded earlier, same 404) has had its chance too.
    await page.evaluate(() => {
      const d = document.createElement('div');
      d.innerHTML = '<img src="x-control" onerror="window.__control = 1">';
      document.body.appendChild(d);
    });
    await page.waitForFunction(() => window.__control === 1, null, { timeout: 5000 });
    const findings = await page.evaluate(() => {
      const root = document.getElementById('turns');
      const handlers = [];
      for (const e of root.querySelectorAll('*')) {
        for (const a of e.attributes) {
          const v = a.value.trim().toLowerCase();
          if (a.name.toLowerCase().startsWith('on') || v.startsWith('javascript:')
              || v.startsWith('data:text/html')) handlers.push(e.tagName + '[' + a.name + ']');
        }
      }
      return {
        pwned: window.__pwned === undefined ? null : String(window.__pwned),
        handlers,
        scripts: root.querySelectorAll('script').length,
        iframes: root.querySelectorAll('iframe, object, embed').length,
        // DOM clobbering: a reply's element must not shadow the page's own controls
        namedInReply: root.querySelectorAll('[id], [name]').length,
        controlsIntact: ['prompt', 'send', 'cancel', 'composer-error'].every((id) => {
          const e = document.getElementById(id);
          return !!e && !root.contains(e);
        }),
        text: root.textContent,
      };
    });
    // Click every link the reply shows: a javascript: URL would run (and replace the page).
    const links = page.locator('#turns a', { hasText: 'click me' });
    const clicked = await links.count();
    for (let i = 0; i < clicked; i++) await links.nth(i).click({ timeout: 2000 }).catch(() => {});
    await page.waitForLoadState('load');
    findings.afterClicks = await page.evaluate(() => ({
      pwned: window.__pwned === undefined ? null : String(window.__pwned),
      intact: !!document.getElementById('turns') && !!window.gadgetPage,
    }));
    const blocks = await page.evaluate(() => (window.gadgetPage ? window.gadgetPage.blocks() : []));
    return Object.assign({ status, clicked, control: true, blocks }, findings);
  },

  /** Compaction blocks and context meters: the session's blocks and each turn's meter. */
  async context(page, cfg) {
    await ready(page, cfg.timeoutMs);
    const status = await submit(page, cfg.prompt, cfg.timeoutMs);
    await page.click('#turns .block.compaction > summary');
    const found = await page.evaluate(() => ({
      blocks: window.gadgetPage.blocks(),
      summaryVisible: (() => {
        const s = document.querySelector('#turns .block.compaction .compaction-summary');
        return !!s && s.getBoundingClientRect().height > 0;
      })(),
      meters: Array.from(document.querySelectorAll('#turns .turn')).map((t) => {
        const m = t.querySelector('.turn-footer .context-meter');
        return {
          turnId: t.dataset.turnId,
          text: m ? m.textContent : null,
          title: m ? m.title : null,
          full: !!(m && m.querySelector('.context-fill.full')),
        };
      }),
    }));
    return Object.assign({ status }, found);
  },

  /** The connection drops mid-stream; the page reconnects, re-watches, and misses nothing. */
  async reconnect(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await page.fill('#prompt', cfg.prompt);
    await page.press('#prompt', 'Enter');
    await page.waitForFunction(() => {
      const b = document.querySelectorAll('#turns .block[data-mode="responding"]');
      return b.length && b[b.length - 1].textContent.length > 20;
    }, null, { timeout: cfg.timeoutMs });
    const atDrop = await page.evaluate(() => window.gadgetPage.blocks());
    await page.evaluate(() => window.gadgetPage.dropConnection());
    await page.waitForSelector('#conn[data-state="offline"]', { timeout: cfg.timeoutMs });
    step('dropped');
    await page.waitForSelector('#conn[data-state="connected"]', { timeout: cfg.timeoutMs });
    step('reconnected');
    const status = await settled(page, cfg.timeoutMs);
    return { status, atDrop, blocks: await page.evaluate(() => window.gadgetPage.blocks()) };
  },

  /** Just a screenshot of the page after a prompt (for looking at it by hand). */
  async look(page, cfg) {
    await ready(page, cfg.timeoutMs);
    if (cfg.prompt) {
      await page.fill('#prompt', cfg.prompt);
      await page.press('#prompt', 'Enter');
      if (cfg.midScreenshot) {
        await page.waitForSelector('#turns .block[data-mode="responding"]', { timeout: cfg.timeoutMs });
        await page.waitForTimeout(400);
        await page.screenshot({ path: cfg.midScreenshot, fullPage: false });
      }
      await settled(page, cfg.timeoutMs);
    }
    if (cfg.expandTools) {
      for (const d of await page.locator('#turns details.tool').all()) await d.evaluate((e) => { e.open = true; });
    }
    return { blocks: await page.evaluate(() => window.gadgetPage.blocks()) };
  },
};

Object.assign(scenarios, require('./ux.js')({ ready, settled, submit, step }));
Object.assign(scenarios, require('./deleting.js')({ ready, settled, submit, step }));
Object.assign(scenarios, require('./sampling.js')({ ready, settled, submit, step }));
Object.assign(scenarios, require('./tool-search.js')({ ready, settled, submit, step }));
Object.assign(scenarios, require('./agent-tools.js')({ ready, settled, submit, step }));
Object.assign(scenarios, require('./turn-controls.js')({ ready, settled, submit, step, installRecorder }));
Object.assign(scenarios, require('./forms.js')({ ready, submit, step }));

async function main() {
  const cfg = JSON.parse(process.argv[2]);
  cfg.timeoutMs = cfg.timeoutMs || 20000;
  const scenario = scenarios[cfg.scenario];
  if (!scenario) throw new Error('unknown scenario ' + cfg.scenario);
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(CHROMIUM + ' is missing: set GADGET_CHROMIUM to a Chromium binary, or run ./test.sh, which installs one');
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gadget-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: ARGS,
      viewport: { width: cfg.width || 1200, height: cfg.height || 820 },
      colorScheme: cfg.colorScheme || 'light',
    });
    const page = context.pages()[0] || await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      // Hostile Markdown keeps harmless <img src=x> tags, whose loads fail: expected there.
      if (cfg.ignoreResourceErrors && m.text().startsWith('Failed to load resource')) return;
      problems.push('console: ' + m.text());
    });
    await page.goto(cfg.url);
    step('loaded');
    const result = await scenario(page, cfg);
    if (cfg.screenshot) await page.screenshot({ path: cfg.screenshot, fullPage: false });
    emit({ type: 'result', problems, result });
  } finally {
    if (context) await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

// process.exit does not wait for a pipe to drain (a 100 KB result line was cut short): exit from
// the callback of a last write, which runs once everything before it has been flushed
function exit(code) {
  process.stdout.write('', () => process.exit(code));
}

main().then(() => exit(0), (e) => {
  emit({ type: 'error', message: String(e && e.stack || e) });
  exit(1);
});
