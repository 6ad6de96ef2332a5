'use strict';
// A turn as a person steers it (BrowserToolsTest.java, BrowserLiveTest.java,
// BrowserApprovalTest.java): tools as they run and after a reload, the agent's plan, Cancel, and
// a command that waits for approval. Scenarios for page.js.

module.exports = ({ ready, settled, submit, step, installRecorder }) => ({
  /**
   * Tools as they run: a running tool shows its output as it comes, then its outcome in the
   * same element; a failed tool shows as failed, live and after a reload (from the store).
   */
  async tools(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await page.evaluate(installRecorder);
    await page.fill('#prompt', cfg.prompt);
    await page.press('#prompt', 'Enter');
    const toolState = () => Array.from(document.querySelectorAll('#turns .block.tool')).map((b) => ({
      state: b.dataset.toolState,
      status: b.querySelector('.tool-status').textContent,
      result: b.querySelector('.tool-result').textContent,
      open: b.open,
      dot: b.querySelector('.dot').className,
    }));
    await page.waitForFunction(() => Array.from(document.querySelectorAll('#turns .block.tool'))
      .some((b) => b.dataset.toolState === 'running'
        && b.querySelector('.tool-result').textContent.includes('first')),
    null, { timeout: cfg.timeoutMs });
    const running = await page.evaluate(toolState);
    const runningIds = await page.evaluate(() => window.__blockIds());
    step('running', { running });
    const status = await settled(page, cfg.timeoutMs);
    const live = await page.evaluate(toolState);
    const finalIds = await page.evaluate(() => window.__blockIds());
    await page.reload();
    await ready(page, cfg.timeoutMs);
    await page.waitForFunction((n) => document.querySelectorAll('#turns .block.tool').length >= n,
      live.length, { timeout: cfg.timeoutMs });
    const stored = await page.evaluate(toolState);
    return { status, running, runningIds, live, finalIds, stored };
  },
  /** A reload while a command runs: the running tool comes back with its output so far. */
  async reloadRunning(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await page.fill('#prompt', cfg.prompt);
    await page.press('#prompt', 'Enter');
    const running = () => Array.from(document.querySelectorAll('#turns .block.tool'))
      .some((b) => b.dataset.toolState === 'running'
        && b.querySelector('.tool-result').textContent.includes('first'));
    await page.waitForFunction(running, null, { timeout: cfg.timeoutMs });
    await page.reload();
    // (not ready(): Send stays disabled while the turn runs)
    await page.waitForSelector('#conn[data-state="connected"]', { timeout: cfg.timeoutMs });
    await page.waitForFunction(running, null, { timeout: cfg.timeoutMs });
    const afterReload = await page.evaluate(() => Array.from(document.querySelectorAll('#turns .block.tool'))
      .map((b) => ({ state: b.dataset.toolState, result: b.querySelector('.tool-result').textContent })));
    const status = await settled(page, cfg.timeoutMs);
    const final = await page.evaluate(() => Array.from(document.querySelectorAll('#turns .block.tool'))
      .map((b) => ({ state: b.dataset.toolState, result: b.querySelector('.tool-result').textContent })));
    return { status, afterReload, final };
  },
  /**
   * The agent's plan: every state its checklist showed, with the checklist element's identity,
   * then the checklists after a reload.
   */
  async plan(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await page.evaluate(() => {
      window.__plans = [];
      const ids = new WeakMap();
      let next = 0;
      const snap = () => Array.from(document.querySelectorAll('#turns .block.plan')).map((p) => {
        if (!ids.has(p)) ids.set(p, ++next);
        return { id: ids.get(p), steps: Array.from(p.querySelectorAll('li')).map((li) => li.dataset.status + ':' + li.textContent) };
      });
      new MutationObserver(() => {
        const s = JSON.stringify(snap());
        if (window.__plans[window.__plans.length - 1] !== s) window.__plans.push(s);
      }).observe(document.getElementById('turns'), { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const status = await submit(page, cfg.prompt, cfg.timeoutMs);
    const seen = (await page.evaluate(() => window.__plans)).map((s) => JSON.parse(s));
    const updates = await page.locator('#turns .block.plan-update').count();
    await page.reload();
    await ready(page, cfg.timeoutMs);
    await page.waitForFunction(() => document.querySelectorAll('#turns .block.plan').length > 0,
      null, { timeout: cfg.timeoutMs });
    const reloaded = await page.evaluate(() => Array.from(document.querySelectorAll('#turns .block.plan'))
      .map((p) => Array.from(p.querySelectorAll('li')).map((li) => li.dataset.status + ':' + li.textContent)));
    return { status, seen, updates, reloaded };
  },
  /** The user cancels a running turn with the Cancel button. */
  async cancel(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await page.fill('#prompt', cfg.prompt);
    await page.press('#prompt', 'Enter');
    await page.waitForSelector('#cancel:not([hidden])', { timeout: cfg.timeoutMs });
    await page.waitForFunction(() => document.querySelectorAll('#turns .block').length > 0,
      null, { timeout: cfg.timeoutMs });
    await page.click('#cancel');
    await page.waitForFunction(() => {
      const t = document.querySelectorAll('#turns .turn');
      return t.length && t[t.length - 1].dataset.status !== 'processing';
    }, null, { timeout: cfg.timeoutMs });
    const out = await page.evaluate(() => {
      const t = document.querySelectorAll('#turns .turn');
      const last = t[t.length - 1];
      return {
        status: last.dataset.status,
        footer: last.querySelector('.turn-footer').textContent,
        cancelHidden: document.getElementById('cancel').hidden,
        sendEnabled: !document.getElementById('send').disabled,
      };
    });
    return out;
  },
  /**
   * Approval: the chat asks before commands (set with the policy picker), the prompt's command
   * waits, its card is reached with the keyboard (Shift+Tab from the prompt) and approved with
   * Enter; the tool block says who approved it, before and after a reload.
   */
  async approval(page, cfg) {
    const timeout = cfg.timeoutMs;
    await ready(page, timeout);
    await page.waitForSelector('#approval-policy:not([disabled])', { timeout });
    await page.selectOption('#approval-policy', 'commands');
    await page.waitForSelector('#approval-policy:not([disabled])', { timeout });
    await page.fill('#prompt', cfg.prompt);
    await page.press('#prompt', 'Enter');
    await page.waitForSelector('#approvals .approval', { timeout });
    const card = await page.$eval('#approvals .approval', (c) => ({
      text: c.textContent,
      params: c.querySelector('.approval-params').textContent,
      buttons: Array.from(c.querySelectorAll('button')).map((b) => b.textContent),
    }));
    step('waiting', card);
    await page.focus('#prompt');
    const onApprove = () => !!document.activeElement
      && document.activeElement.classList.contains('approve');
    let tabs = 0;
    while (tabs < 30 && !(await page.evaluate(onApprove))) {
      await page.keyboard.press('Shift+Tab');
      tabs++;
    }
    await page.keyboard.press('Enter');
    const status = await settled(page, timeout);
    const cardsLeft = await page.locator('#approvals .approval').count();
    const note = () => {
      const n = document.querySelector('#turns .block[data-mode="tool"] .approval-note');
      return n ? n.textContent : null;
    };
    const before = await page.evaluate(note);
    await page.reload();
    await ready(page, timeout);
    await page.waitForSelector('#turns .block[data-mode="tool"]', { timeout });
    const after = await page.evaluate(note);
    const policyAfter = await page.$eval('#approval-policy', (e) => e.value);
    return { card, tabs, reachedByKeyboard: tabs < 30, status, cardsLeft, before, after,
      policyAfter };
  },
});
