'use strict';
// The page's forms (PayloadLimitsTest.java, BrowserProvidersTest.java): a prompt over the size
// limit, a new project, a provider and a model chosen for the chat. Scenarios for page.js.

module.exports = ({ ready, submit, step }) => ({
  /**
   * A prompt of cfg.length characters is pasted: the page says it is over the limit, sends
   * nothing on Enter and keeps its connection; then cfg.prompt goes through as usual.
   */
  async longPrompt(page, cfg) {
    await ready(page, cfg.timeoutMs);
    await page.evaluate(() => {
      const conn = document.getElementById('conn');
      window.__conn = [conn.dataset.state];
      new MutationObserver(() => window.__conn.push(conn.dataset.state))
        .observe(conn, { attributes: true, attributeFilter: ['data-state'] });
    });
    await page.focus('#prompt');
    await page.keyboard.insertText('x'.repeat(cfg.length));
    step('pasted');
    const error = () => document.getElementById('composer-error').textContent;
    await page.waitForFunction(() => document.getElementById('composer-error').textContent
      .includes('limit'), null, { timeout: cfg.timeoutMs });
    const onPaste = await page.evaluate(error);
    await page.press('#prompt', 'Enter');
    const afterEnter = await page.evaluate(error);
    const kept = await page.evaluate(() => document.getElementById('prompt').value.length);
    await page.fill('#prompt', '');
    const cleared = await page.evaluate(error);
    // Events go out in order on the one connection: had Enter sent the long prompt, this prompt
    // would come after it, on a connection the server had closed.
    const status = await submit(page, cfg.prompt, cfg.timeoutMs);
    const conn = await page.evaluate(() => window.__conn);
    return { onPaste, afterEnter, kept, cleared, status, conn };
  },
  /** A new project from the sidebar's form, named cfg.name: what the sidebar says after. */
  async newProject(page, cfg) {
    await ready(page, cfg.timeoutMs);
    const before = await page.locator('#project-select option').count();
    await page.evaluate(() => { document.getElementById('new-project').open = true; });
    await page.fill('#project-form input[name="name"]', cfg.name);
    await page.fill('#project-form input[name="gitUrl"]', cfg.gitUrl);
    await page.press('#project-form input[name="gitUrl"]', 'Enter');
    await page.waitForFunction((n) => document.querySelectorAll('#project-select option').length > n
        || document.getElementById('side-error').textContent !== '',
      before, { timeout: cfg.timeoutMs });
    return {
      error: await page.evaluate(() => document.getElementById('side-error').textContent),
      projects: await page.locator('#project-select option').count(),
    };
  },
  /** Adds a provider, picks one of its models for the chat, sends a prompt, reads the totals. */
  async provider(page, cfg) {
    const timeout = cfg.timeoutMs;
    await ready(page, timeout);
    await page.click('#providers-panel summary');
    await page.fill('#provider-form [name=name]', cfg.providerName);
    await page.selectOption('#provider-form [name=kind]', 'openai');
    await page.fill('#provider-form [name=baseUrl]', cfg.baseUrl);
    await page.fill('#provider-form [name=apiKey]', cfg.apiKey);
    await page.click('#provider-form button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#provider-list .provider').length === 2,
      null, { timeout });
    const listed = await page.$$eval('#provider-list .provider', (els) => els.map((e) => e.textContent));
    const providerId = await page.$eval('#provider-list .provider:nth-child(2)', (e) => e.dataset.providerId);
    step('provider added', { providerId });
    if (cfg.price) {
      await page.click('#provider-list .provider:nth-child(2) button:has-text("Edit")');
      await page.fill('#provider-form [name=prices]', cfg.price);
      await page.click('#provider-form button[type=submit]');
      await page.waitForFunction(() => document.getElementById('provider-cancel').hidden
        && document.getElementById('provider-error').textContent === '', null, { timeout });
      step('prices saved');
    }
    await page.selectOption('#provider-select', providerId);
    await page.waitForFunction(() => document.querySelectorAll('#model-options option').length > 0,
      null, { timeout });
    const models = await page.$$eval('#model-options option', (els) => els.map((e) => e.value));
    await page.fill('#model-input', cfg.model);
    await page.dispatchEvent('#model-input', 'change');
    await page.waitForFunction((want) => document.getElementById('model-picker').dataset.chosen === want,
      providerId + '/' + cfg.model, { timeout });
    step('model chosen');
    const status = await submit(page, cfg.prompt, timeout);
    const blocks = await page.evaluate(() => window.gadgetPage.blocks());
    await page.click('#usage-panel summary');
    await page.waitForFunction(() => document.querySelectorAll('#usage-rows tr').length >= 2, null, { timeout });
    const usage = await page.$$eval('#usage-rows tr', (els) => els.map((e) => e.textContent));
    const html = await page.content();
    const storage = await page.evaluate(() => JSON.stringify(localStorage));
    return { status, providerId, listed, models, blocks, usage,
      keyInPage: html.includes(cfg.apiKey) || storage.includes(cfg.apiKey) };
  },
});
