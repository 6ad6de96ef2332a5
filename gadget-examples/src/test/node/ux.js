'use strict';
// The page as a person meets it (BrowserUxTest.java): a new user on a phone, sign-in links in an
// open tab, the contrast of every text style in light and dark; a drone crash mid-turn
// (BrowserLiveTest.java). Scenarios for page.js.

/** In the page: every visible text's colour against what is behind it, as WCAG computes it. */
function contrastReport() {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, under) => {
    const a = top.a + under.a * (1 - top.a);
    const mix = (x, y) => (a === 0 ? 0 : (x * top.a + y * under.a * (1 - top.a)) / a);
    return { r: mix(top.r, under.r), g: mix(top.g, under.g), b: mix(top.b, under.b), a };
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const background = (e) => {
    const chain = [];
    for (let n = e; n && n.nodeType === 1; n = n.parentElement) chain.push(n);
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    const root = parse(getComputedStyle(document.documentElement).backgroundColor);
    if (root && root.a > 0) bg = over(root, bg);
    else if (matchMedia('(prefers-color-scheme: dark)').matches) bg = { r: 18, g: 18, b: 18, a: 1 };
    for (let i = chain.length - 1; i >= 0; i--) {
      const c = parse(getComputedStyle(chain[i]).backgroundColor);
      if (c && c.a > 0) bg = over(c, bg);
    }
    return bg;
  };
  const checked = [];
  const failures = [];
  for (const e of document.body.querySelectorAll('*')) {
    if (['SCRIPT', 'STYLE', 'OPTION', 'SELECT', 'TEXTAREA', 'INPUT'].includes(e.tagName)) continue;
    const own = Array.from(e.childNodes).filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own.length || e.closest('[hidden]') || e.matches(':disabled')) continue;
    if (!e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const st = getComputedStyle(e);
    const fg = parse(st.color);
    if (!fg) continue;
    const bg = background(e);
    const shown = over(fg, bg);
    const l1 = lum(shown), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const name = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
      + (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\s+/).join('.') : '');
    const item = { name, text: own[0].textContent.trim().slice(0, 40), ratio: Math.round(ratio * 100) / 100,
      color: st.color, fontSize: st.fontSize };
    checked.push(item);
    if (ratio < 4.5) failures.push(item);
  }
  return { checked, failures };
}

async function shot(page, cfg, name) {
  if (cfg.shotDir) await page.screenshot({ path: cfg.shotDir + '/' + name + '.png', fullPage: false });
}

async function signedIn(page, timeout) {
  await page.waitForSelector('#app:not([hidden])', { timeout });
  await page.waitForSelector('#conn[data-state="connected"]', { timeout });
}

module.exports = ({ ready, settled, submit, step }) => ({
  /**
   * A new user on a phone: creates a project (which opens a chat), sends a prompt, starts a
   * second chat, sends another, and switches back to the first through the menu.
   */
  async newUser(page, cfg) {
    const timeout = cfg.timeoutMs;
    await signedIn(page, timeout);
    const tag = cfg.width + 'x' + cfg.height + '-' + cfg.colorScheme;
    const topbar = await page.$eval('.topbar', (e) => e.getBoundingClientRect().height);
    // One line: every item's middle within a few pixels of the bar's middle.
    const brandRow = await page.$$eval('.topbar > *:not([hidden])', (els) => els
      .filter((e) => e.getBoundingClientRect().width > 0)
      .map((e) => {
        const r = e.getBoundingClientRect();
        const bar = e.parentElement.getBoundingClientRect();
        return Math.abs((r.top + r.bottom) / 2 - (bar.top + bar.bottom) / 2) <= 4 ? 0 : Math.round(r.top);
      }));
    await page.waitForSelector('#empty-new-project', { timeout });
    const emptyText = await page.$eval('#turns', (e) => e.textContent);
    const focusedOnLoad = await page.evaluate(() => document.activeElement && document.activeElement.id);
    await shot(page, cfg, 'new-user-' + tag);
    await page.click('#empty-new-project');
    const inView = (sel) => page.$eval(sel, (e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight;
    });
    await page.waitForFunction(() => {
      const r = document.getElementById('project-form').getBoundingClientRect();
      return r.width > 0 && r.left >= 0 && r.right <= innerWidth;
    }, null, { timeout });
    // The project form refuses what no drone could clone, in people's words.
    await page.fill('#project-form [name=name]', cfg.projectName);
    await page.fill('#project-form [name=gitUrl]', 'not a url at all');
    await page.press('#project-form [name=gitUrl]', 'Enter');
    await page.waitForFunction(() => document.getElementById('side-error').textContent !== '', null, { timeout });
    const badUrl = await page.$eval('#side-error', (e) => e.textContent);
    await page.fill('#project-form [name=gitUrl]', cfg.gitUrl);
    await page.press('#project-form [name=gitUrl]', 'Enter');
    await page.waitForSelector('#session-list .session.draft.active', { state: 'attached', timeout });
    await page.waitForSelector('#send:not([disabled])', { timeout });
    await page.waitForFunction(() => !document.getElementById('app').classList.contains('drawer-open'), null, { timeout });
    const suggestions = await page.$$eval('#turns .suggestion', (els) => els.map((e) => e.textContent));
    step('project created');
    const first = await submit(page, cfg.prompt, timeout);
    const titleAfterTurn = await page.title();
    await page.click('#menu');
    await page.waitForFunction(() => {
      const r = document.getElementById('sidebar').getBoundingClientRect();
      return Math.abs(r.left) < 0.5;
    }, null, { timeout });
    const drawer = { sessions: await inView('#session-list'), drones: await inView('#drone-list'),
      newChat: await inView('#new-session') };
    await shot(page, cfg, 'drawer-' + tag);
    await page.click('#new-session');
    await page.waitForSelector('#session-list .session.draft.active', { state: 'attached', timeout });
    const second = await submit(page, cfg.prompt2, timeout);
    await shot(page, cfg, 'chat-' + tag);
    await page.click('#menu');
    await page.waitForFunction(() => document.getElementById('app').classList.contains('drawer-open'), null, { timeout });
    await page.fill('#session-search', cfg.search);
    const afterSearch = await page.$$eval('#session-list li:not([hidden]) .session[data-session-id]',
      (els) => els.map((e) => e.textContent));
    await page.click('#session-list .session[data-session-id] >> text=' + afterSearch[0]);
    await page.waitForFunction((p) => {
      const t = document.querySelectorAll('#turns .prompt-text');
      return t.length === 1 && t[0].textContent === p;
    }, cfg.prompt, { timeout });
    const drawerClosed = await page.evaluate(() => !document.getElementById('app').classList.contains('drawer-open'));
    const sessions = await page.$$eval('#session-list .session[data-session-id]', (els) => els.map((e) => e.textContent));
    const contrast = await page.evaluate(contrastReport);
    return { topbar, brandRow, emptyText, focusedOnLoad, badUrl, suggestions, first, second,
      titleAfterTurn, drawer, drawerClosed, afterSearch, sessions, contrast,
      ariaLive: await page.$eval('#turns', (e) => e.getAttribute('aria-live')) };
  },

  /**
   * Sign-in links in a tab already open: a drone token's link shows what it is (in the error
   * colour), then the user's link pasted into the same tab signs in without a reload.
   */
  async signInLink(page, cfg) {
    const timeout = cfg.timeoutMs;
    await page.waitForSelector('#signin:not([hidden])', { timeout });
    await page.waitForFunction(() => document.getElementById('signin-error').textContent !== '', null, { timeout });
    const droneMessage = await page.$eval('#signin-error', (e) => e.textContent);
    const colours = await page.evaluate(() => ({
      error: getComputedStyle(document.getElementById('signin-error')).color,
      bad: (() => {
        const probe = document.createElement('span');
        probe.style.color = 'var(--bad)';
        document.body.appendChild(probe);
        const c = getComputedStyle(probe).color;
        probe.remove();
        return c;
      })(),
    }));
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.goto(cfg.userUrl);
    await signedIn(page, timeout);
    await ready(page, timeout);
    return {
      droneMessage, colours,
      sameDocument: await page.evaluate(() => window.__sameDocument === true),
      errorAfter: await page.$eval('#signin-error', (e) => e.textContent),
      addressBar: page.url(),
    };
  },

  /**
   * Reading a reply: its code highlighted, Copy on the code and on the reply (read back from the
   * clipboard), thinking folded alike live and after a reload, a very long prompt folded.
   */
  async reading(page, cfg) {
    const timeout = cfg.timeoutMs;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await ready(page, timeout);
    // whether a block being written ever showed the streaming cursor
    await page.evaluate(() => {
      window.sawStreaming = false;
      new MutationObserver(() => {
        if (document.querySelector('#turns .block.streaming')) window.sawStreaming = true;
      }).observe(document.getElementById('turns'), { subtree: true, childList: true, attributes: true });
    });
    const status = await submit(page, cfg.prompt, timeout);
    const thinkingOpen = () => page.$$eval('#turns details.thinking', (els) => els.map((e) => e.open));
    const live = await thinkingOpen();
    const streaming = {
      seen: await page.evaluate(() => window.sawStreaming),
      left: await page.$$eval('#turns .block.streaming', (els) => els.length),
    };
    const thinkingHtml = await page.$eval('#turns .thinking-text', (e) => e.innerHTML);
    const code = await page.$eval('#turns pre code', (c) => ({
      hljs: c.classList.contains('hljs'),
      spans: c.querySelectorAll('span[class^="hljs-"]').length,
      text: c.textContent,
    }));
    const clip = () => page.evaluate(() => navigator.clipboard.readText());
    await page.click('#turns pre button.copy');
    await page.waitForSelector('#turns pre button.copy[data-copied="yes"]', { timeout });
    const copiedCode = await clip();
    await page.click('#turns .responding > button.copy');
    await page.waitForSelector('#turns .responding > button.copy[data-copied="yes"]', { timeout });
    const copiedReply = await clip();
    const maxHeight = await page.$eval('#turns .thinking-text', (e) => getComputedStyle(e).maxHeight);
    const blocks = await page.evaluate(() => window.gadgetPage.blocks());
    await page.reload();
    await ready(page, timeout);
    await page.waitForFunction((n) => document.querySelectorAll('#turns details.thinking').length === n,
      live.length, { timeout });
    const reloaded = await thinkingOpen();
    // the person opens the thinking: it is open again after a reload
    await page.click('#turns details.thinking > summary');
    await page.reload();
    await ready(page, timeout);
    await page.waitForFunction((n) => document.querySelectorAll('#turns details.thinking').length === n,
      live.length, { timeout });
    const reopened = await thinkingOpen();
    // A prompt of cfg.longLines lines: folded to a few lines, all of it on request.
    const long = Array.from({ length: cfg.longLines }, (_, i) => 'line ' + i + ' of a long log').join('\n');
    await page.fill('#prompt', long);
    await page.press('#prompt', 'Enter');
    await page.waitForFunction(() => document.querySelectorAll('#turns .prompt-text').length === 2, null, { timeout });
    await settled(page, timeout);
    const last = '#turns .turn:last-child';
    const folded = await page.$eval(last + ' .prompt-text', (e) => e.getBoundingClientRect().height);
    const unfoldLabel = await page.$eval(last + ' button.unfold', (e) => e.textContent);
    await page.click(last + ' button.unfold');
    const unfolded = await page.$eval(last + ' .prompt-text', (e) => e.getBoundingClientRect().height);
    const fullText = await page.$eval(last + ' .prompt-text', (e) => e.textContent.length);
    await shot(page, cfg, 'reading-' + cfg.width + 'x' + cfg.height + '-' + cfg.colorScheme);
    return { status, live, reloaded, reopened, streaming, thinkingHtml, code, copiedCode,
      copiedReply, maxHeight, blocks,
      folded, unfolded, unfoldLabel, fullText, longLength: long.length };
  },

  /**
   * The drone's controls: its workspace state, taking the workspace over (a prompt is then
   * refused) and giving it back, and using it for the chat.
   */
  async droneControls(page, cfg) {
    const timeout = cfg.timeoutMs;
    await ready(page, timeout);
    await page.waitForSelector('#drone-list .drone-controls', { timeout });
    await page.click('#drone-list .drone-state > summary');
    await page.waitForFunction(() => {
      const t = document.querySelector('#drone-list .drone-state-text');
      return t && t.textContent.startsWith('mode: ');
    }, null, { timeout });
    const stateText = await page.$eval('#drone-list .drone-state-text', (e) => e.textContent);
    const clickButton = (label) => page.evaluate((l) => {
      const b = Array.from(document.querySelectorAll('#drone-list .drone-controls button'))
        .find((x) => x.textContent === l);
      if (!b) throw new Error('no button ' + l);
      b.click();
    }, label);
    const noteAfter = async (label) => {
      await page.evaluate(() => document.querySelectorAll('#drone-list .drone-note')
        .forEach((n) => { n.textContent = ''; }));
      await clickButton(label);
      await page.waitForFunction(() => {
        const n = document.querySelector('#drone-list .drone-note');
        return n && n.textContent !== '';
      }, null, { timeout });
      return page.$eval('#drone-list .drone-note', (e) => e.textContent);
    };
    const tookOver = await noteAfter('Take over');
    await page.waitForSelector('#drone-list .drone-mode.user', { timeout });
    await page.fill('#prompt', 'hello while I work here');
    await page.press('#prompt', 'Enter');
    await page.waitForFunction(() => document.getElementById('composer-error').textContent !== '',
      null, { timeout });
    const refused = await page.$eval('#composer-error', (e) => e.textContent);
    const gaveBack = await noteAfter('Give back');
    await page.waitForSelector('#drone-list .drone-mode:not(.user)', { timeout });
    const used = await noteAfter('Use for this chat');
    return { stateText, tookOver, refused, gaveBack, used,
      stateStillOpen: await page.$eval('#drone-list .drone-state', (e) => e.open) };
  },

  /** Renames the chat and the project in place; a bad name is refused in words; a reload keeps them. */
  async rename(page, cfg) {
    const timeout = cfg.timeoutMs;
    await ready(page, timeout);
    await page.click('#session-list button.rename');
    await page.fill('#session-list .rename-input', '  ' + cfg.chatName + '  ');
    await page.press('#session-list .rename-input', 'Enter');
    await page.waitForFunction((n) => document.querySelector('#session-list .session.active').textContent === n,
      cfg.chatName, { timeout });
    await page.click('#rename-project');
    await page.fill('.sidebar .rename-input', '!!!');
    await page.press('.sidebar .rename-input', 'Enter');
    await page.waitForFunction(() => document.getElementById('side-error').textContent !== '', null, { timeout });
    const refused = await page.$eval('#side-error', (e) => e.textContent);
    await page.fill('.sidebar .rename-input', cfg.projectName);
    await page.press('.sidebar .rename-input', 'Enter');
    await page.waitForSelector('#project-select:not([hidden])', { timeout });
    const projectShown = await page.$eval('#project-select', (e) => e.selectedOptions[0].textContent);
    await page.reload();
    await ready(page, timeout);
    return {
      refused, projectShown,
      chatAfterReload: await page.$eval('#session-list .session.active', (e) => e.textContent),
      projectAfterReload: await page.$eval('#project-select', (e) => e.selectedOptions[0].textContent),
    };
  },

  /** Enter while the agent works: the text stays and the page says so; after the turn it goes. */
  async busy(page, cfg) {
    const timeout = cfg.timeoutMs;
    await ready(page, timeout);
    await page.fill('#prompt', cfg.prompt);
    await page.press('#prompt', 'Enter');
    await page.waitForSelector('#cancel:not([hidden])', { timeout });
    await page.fill('#prompt', cfg.prompt2);
    await page.press('#prompt', 'Enter');
    const whileBusy = {
      error: await page.$eval('#composer-error', (e) => e.textContent),
      kept: await page.$eval('#prompt', (e) => e.value),
      turns: await page.locator('#turns .turn').count(),
      title: await page.title(),
      // the row beside Cancel: the status on one line, the approval picker labelled
      status: await page.$eval('#turn-status', (e) => ({ text: e.textContent,
        lines: Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight || '16')) })),
      statusHeight: await page.$eval('#turn-status', (e) => e.getBoundingClientRect().height),
      sendHeight: await page.$eval('#cancel', (e) => e.getBoundingClientRect().height),
      pickerLabel: await page.$eval('#approval-policy', (e) => (e.closest('label') || {}).textContent || ''),
      modelCount: await page.$eval('#model-count', (e) => e.textContent),
    };
    await settled(page, timeout);
    const second = await submit(page, cfg.prompt2, timeout);
    return { whileBusy, second, turns: await page.locator('#turns .turn').count(),
      errorAfter: await page.$eval('#composer-error', (e) => e.textContent) };
  },

  /**
   * A turn whose drone crashes mid-stream (the test crashes it and starts it again): every notice
   * its footer showed while it ran, its footer once it ended, and the same after a reload.
   */
  async recovered(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await page.evaluate(() => {
      window.notices = [];
      new MutationObserver(() => {
        const n = document.querySelector('#turns .turn-footer .status-notice');
        if (n && !window.notices.includes(n.textContent)) window.notices.push(n.textContent);
      }).observe(document.getElementById('turns'), { subtree: true, childList: true, characterData: true });
    });
    const status = await submit(page, cfg.prompt, cfg.timeoutMs);
    const notices = await page.evaluate(() => window.notices);
    const footer = await page.$eval('#turns .turn-footer', (e) => e.textContent);
    await page.reload();
    await ready(page, cfg.timeoutMs);
    await page.waitForSelector('#turns .turn-footer .status-label', { timeout: cfg.timeoutMs });
    const reloaded = await page.$eval('#turns .turn-footer', (e) => e.textContent);
    return { status, notices, footer, reloaded };
  },

  /** After a turn with thinking and a tool call, both opened: the contrast of every text. */
  async contrast(page, cfg) {
    await ready(page, cfg.timeoutMs);
    const status = await submit(page, cfg.prompt, cfg.timeoutMs);
    await page.evaluate(() => {
      for (const d of document.querySelectorAll('#turns details')) d.open = true;
      for (const d of document.querySelectorAll('.sidebar details')) d.open = true;
    });
    await page.waitForFunction(() => document.querySelectorAll('#usage-rows tr').length > 0,
      null, { timeout: cfg.timeoutMs });
    const app = await page.evaluate(contrastReport);
    await shot(page, cfg, 'chat-' + cfg.width + 'x' + cfg.height + '-' + cfg.colorScheme);
    await page.click('#signout');
    await page.evaluate(() => { document.getElementById('signin-error').textContent = 'invalid token'; });
    const signin = await page.evaluate(contrastReport);
    return { status, title: await page.title(), checked: app.checked.concat(signin.checked),
      failures: app.failures.concat(signin.failures) };
  },
});
