'use strict';
// A model's sampling set in the page (BrowserProvidersTest.java): the provider form's three
// fields, the chat's own beside its model (what it inherits shown as their placeholders), a value
// out of range refused in words, then a prompt. Scenarios for page.js.

const chatSampling = () => ({
  saved: document.getElementById('chat-sampling').dataset.saved,
  placeholders: ['chat-temperature', 'chat-top-p', 'chat-top-k']
    .map((id) => document.getElementById(id).placeholder),
  error: document.getElementById('model-error').textContent,
});

module.exports = ({ ready, submit, step }) => ({
  /**
   * Adds a provider with a temperature, a top-k and (cfg.contextWindows) its models' context
   * windows, reads them back through Edit, picks one of
   * its models for the chat, sets the chat's top-p, tries a temperature of 5 (refused), clears
   * it, and sends a prompt. At cfg.width x cfg.height, a screenshot of the chat to cfg.shot.
   */
  async sampling(page, cfg) {
    const timeout = cfg.timeoutMs;
    await ready(page, timeout);
    await page.click('#providers-panel summary');
    await page.fill('#provider-form [name=name]', cfg.providerName);
    await page.selectOption('#provider-form [name=kind]', 'openai');
    await page.fill('#provider-form [name=baseUrl]', cfg.baseUrl);
    await page.fill('#provider-form [name=temperature]', cfg.providerTemperature);
    await page.fill('#provider-form [name=topK]', cfg.providerTopK);
    if (cfg.contextWindows) {
      await page.fill('#provider-form [name=contextWindows]', cfg.contextWindows);
    }
    await page.click('#provider-form button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#provider-list .provider').length === 2,
      null, { timeout });
    const providerId = await page.$eval('#provider-list .provider:nth-child(2)', (e) => e.dataset.providerId);
    const formAfterSave = await page.$eval('#provider-form [name=temperature]', (e) => e.value);
    await page.click('#provider-list .provider:nth-child(2) button:has-text("Edit")');
    const edited = await page.$$eval('#provider-form .sampling-fields input', (els) => els.map((e) => e.value));
    const editedWindows = await page.$eval('#provider-form [name=contextWindows]', (e) => e.value);
    await page.click('#provider-cancel');
    step('provider added', { providerId, edited, editedWindows });

    await page.selectOption('#provider-select', providerId);
    await page.waitForFunction(() => document.querySelectorAll('#model-options option').length > 0,
      null, { timeout });
    await page.fill('#model-input', cfg.model);
    // leaving the field commits it (one change event, one setSessionModel): as a person does
    await page.focus('#chat-top-p');
    await page.waitForFunction((want) => document.getElementById('model-picker').dataset.chosen === want,
      providerId + '/' + cfg.model, { timeout });
    const inherited = await page.evaluate(chatSampling);
    step('model chosen', inherited);

    await page.fill('#chat-top-p', cfg.chatTopP);
    await page.dispatchEvent('#chat-top-p', 'change');
    await page.waitForFunction((p) => document.getElementById('chat-sampling').dataset.saved === '{"topP":' + p + '}',
      cfg.chatTopP, { timeout });
    await page.fill('#chat-temperature', '5');
    await page.dispatchEvent('#chat-temperature', 'change');
    await page.waitForFunction(() => document.getElementById('model-error').textContent !== '', null, { timeout });
    const refused = await page.evaluate(chatSampling);
    await page.fill('#chat-temperature', '');
    await page.dispatchEvent('#chat-temperature', 'change');
    await page.waitForFunction(() => document.getElementById('model-error').textContent === '', null, { timeout });
    const chat = await page.evaluate(chatSampling);
    step('chat sampling set', chat);

    // the chat's tool deferral: nonsense refused in words, then "Always" saved as "always"
    const deferral = () => ({
      saved: document.getElementById('chat-tool-deferral').dataset.saved,
      error: document.getElementById('model-error').textContent,
    });
    await page.fill('#chat-tool-deferral', 'sometimes');
    await page.dispatchEvent('#chat-tool-deferral', 'change');
    await page.waitForFunction(() => document.getElementById('model-error').textContent !== '', null, { timeout });
    const deferralRefused = await page.evaluate(deferral);
    await page.fill('#chat-tool-deferral', 'Always');
    await page.dispatchEvent('#chat-tool-deferral', 'change');
    await page.waitForFunction(() => document.getElementById('chat-tool-deferral').dataset.saved === 'always',
      null, { timeout });
    const deferralSet = await page.evaluate(deferral);
    step('chat tool deferral set', deferralSet);
    if (cfg.shot) await page.screenshot({ path: cfg.shot, fullPage: false });
    // the fields fit beside the model on one row with the provider picker
    const oneRow = await page.$$eval('#model-picker > select, #model-picker > input, #chat-sampling, #chat-tool-deferral',
      (els) => {
        const r = els.map((e) => e.getBoundingClientRect());
        return Math.max(...r.map((x) => x.top)) < Math.min(...r.map((x) => x.bottom));
      });
    const status = await submit(page, cfg.prompt, timeout);
    return { status, providerId, formAfterSave, edited, editedWindows, inherited, refused, chat,
      deferralRefused, deferralSet, oneRow };
  },
});
