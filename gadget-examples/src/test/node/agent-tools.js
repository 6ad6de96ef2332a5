'use strict';
// A chat's skills and the agent's own tools in the sidebar (BrowserAgentToolsTest.java): after a
// turn that wrote a tool, the panel lists it experimental beside the project's skill; Promote
// makes it stable, Delete (confirmed) removes it. Scenarios for page.js.

const items = () => Array.from(document.querySelectorAll('#agent-tools .agent-tool'), (li) => ({
  kind: li.dataset.kind,
  name: li.dataset.name,
  badge: li.querySelector('.agent-tool-badge').textContent,
  experimental: li.classList.contains('experimental'),
  buttons: Array.from(li.querySelectorAll('button'), (b) => b.textContent),
  title: li.title,
}));

module.exports = ({ ready, settled, submit, step }) => ({
  /** Sends cfg.prompt, opens the panel, promotes then deletes the tool cfg.tool. */
  async agentTools(page, cfg) {
    const timeout = cfg.timeoutMs;
    await ready(page, timeout);
    await submit(page, cfg.prompt, timeout);
    const status = await settled(page, timeout);
    await page.click('#agent-tools-panel > summary');
    const row = '#agent-tools .agent-tool[data-kind="tool"][data-name="' + cfg.tool + '"]';
    await page.waitForSelector(row, { timeout });
    const listed = await page.evaluate(items);
    step('listed');
    await page.click(row + ' button:text("Promote")');
    await page.waitForFunction((sel) => {
      const li = document.querySelector(sel);
      return li && !li.classList.contains('experimental');
    }, row, { timeout });
    const promoted = await page.evaluate(items);
    step('promoted');
    await page.click(row + ' button:text("Delete")');
    await page.click('#confirm-delete-button');
    await page.waitForFunction((sel) => !document.querySelector(sel), row, { timeout });
    const deleted = await page.evaluate(items);
    const error = await page.evaluate(() => document.getElementById('agent-tools-error').textContent);
    return { status, listed, promoted, deleted, error };
  },
});
