'use strict';
// A search_tools call in the page (BrowserToolsTest.java): one tool line whose status says what
// the search found, live and after a reload, and the turn's footer (how many tools were loaded
// and deferred); a composite tool's inner steps (their time left out). Scenarios for page.js.

const tools = () => Array.from(document.querySelectorAll('#turns .block.tool')).map((b) => ({
  name: b.querySelector('.tool-name').textContent,
  hint: b.querySelector('.tool-hint').textContent,
  status: b.querySelector('.tool-status').textContent,
  steps: Array.from(b.querySelectorAll('.tool-steps .tool-step')).map((li) => li.className + ': '
    + li.querySelector('.tool-step-name').textContent + ' · '
    + li.querySelector('.tool-step-status').textContent.replace(/ · [0-9.]+ m?s$/, '')),
}));

const footer = () => Array.from(document.querySelectorAll('#turns .status-stats'))
  .map((f) => f.textContent).join(' | ');

module.exports = ({ ready, settled, submit }) => ({
  /** Sends cfg.prompt, waits for the turn's end, reads its tool lines, reloads, reads them again. */
  async toolSearch(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await submit(page, cfg.prompt, cfg.timeoutMs);
    const status = await settled(page, cfg.timeoutMs);
    const live = await page.evaluate(tools);
    const liveFooter = await page.evaluate(footer);
    await page.reload();
    await ready(page, cfg.timeoutMs);
    await page.waitForFunction((n) => document.querySelectorAll('#turns .block.tool').length >= n,
      live.length, { timeout: cfg.timeoutMs });
    return { status, live, stored: await page.evaluate(tools), liveFooter,
      storedFooter: await page.evaluate(footer) };
  },
});
