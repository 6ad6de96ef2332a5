'use strict';
// Deleting chats and projects (BrowserUxTest.java): the confirmation reached by keyboard and by
// mouse, Escape giving up, another tab leaving the deleted chat, and what the page shows after.
// Scenarios for page.js.

async function shot(page, cfg, name) {
  if (cfg.shotDir) await page.screenshot({ path: cfg.shotDir + '/' + name + '.png', fullPage: false });
}

const activeChat = () => {
  const a = document.querySelector('#session-list .session.active');
  return a ? a.textContent : null;
};
const chats = () => Array.from(document.querySelectorAll('#session-list .session[data-session-id]'),
  (e) => e.textContent);
// The next chat shown: its snapshot applied (no turns of the deleted one, its empty state).
const emptyChatShown = () => !document.querySelector('#turns .turn') && !!document.querySelector('#turns .empty');
const drawerOpen = () => document.getElementById('app').classList.contains('drawer-open');

module.exports = ({ ready, submit, step }) => ({
  /**
   * In a project with two chats (and another project): sends a prompt in the shown chat, opens
   * a second tab on it, deletes it from the keyboard (after giving up once with Escape), then
   * deletes the project with the mouse.
   */
  async deleting(page, cfg) {
    const timeout = cfg.timeoutMs;
    const phone = cfg.width < 700;
    const tag = cfg.width + 'x' + cfg.height + '-' + cfg.colorScheme;
    await ready(page, timeout);
    const status = await submit(page, cfg.prompt, timeout);
    const doomed = await page.evaluate(activeChat);
    const other = await page.context().newPage();
    await other.goto(cfg.url);
    await ready(other, timeout);
    const otherBefore = await other.evaluate(activeChat);
    step('two tabs on the chat');

    const openMenu = async () => {
      if (!phone) return;
      await page.click('#menu');
      await page.waitForFunction(() => Math.abs(document.getElementById('sidebar').getBoundingClientRect().left) < 0.5,
        null, { timeout });
    };
    const dialogShown = () => page.waitForFunction(() => {
      const d = document.getElementById('confirm-delete');
      return d && d.open;
    }, null, { timeout });
    const dialogState = () => page.evaluate(() => {
      const d = document.getElementById('confirm-delete');
      const r = d.getBoundingClientRect();
      return { open: d.open, modal: d.matches(':modal'), focused: document.activeElement.textContent,
        title: d.querySelector('h2').textContent, text: d.querySelector('p').textContent,
        inView: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight };
    });

    // The chat: 🗑 reached with the keyboard; Escape gives up and leaves the drawer open.
    await openMenu();
    await page.focus('#session-list button.delete');
    await page.keyboard.press('Enter');
    await dialogShown();
    const chatDialog = await dialogState();
    await shot(page, cfg, 'delete-chat-' + tag);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.getElementById('confirm-delete').open, null, { timeout });
    const afterEscape = { chats: await page.evaluate(chats), drawerOpen: await page.evaluate(drawerOpen) };
    await page.focus('#session-list button.delete');
    await page.keyboard.press('Enter');
    await dialogShown();
    await page.keyboard.press('Tab');
    const secondFocus = await page.evaluate(() => document.activeElement.textContent);
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => !Array.from(document.querySelectorAll('#session-list .session[data-session-id]'))
      .some((e) => e.textContent === n), doomed, { timeout });
    await page.waitForFunction(() => document.querySelectorAll('#session-list .session.active').length === 1,
      null, { timeout });
    await page.waitForFunction(emptyChatShown, null, { timeout });
    const afterChat = { chats: await page.evaluate(chats), active: await page.evaluate(activeChat),
      turns: await page.locator('#turns .turn').count(),
      empty: await page.locator('#turns .empty').count() };
    await other.waitForFunction((n) => {
      const a = document.querySelector('#session-list .session.active');
      return a && a.textContent !== n;
    }, doomed, { timeout });
    await other.waitForFunction(emptyChatShown, null, { timeout });
    const otherAfter = { active: await other.evaluate(activeChat), chats: await other.evaluate(chats),
      turns: await other.locator('#turns .turn').count() };
    step('chat deleted');

    // The project: with the mouse; the page moves to the other project and its chat.
    await openMenu();
    const projectBefore = await page.$eval('#project-select', (e) => e.selectedOptions[0].textContent);
    await page.click('#delete-project');
    await dialogShown();
    const projectDialog = await dialogState();
    await shot(page, cfg, 'delete-project-' + tag);
    await page.click('#confirm-delete-button');
    await page.waitForFunction((n) => Array.from(document.querySelectorAll('#project-select option'))
      .every((o) => o.textContent !== n), projectBefore, { timeout });
    // The other project's chats listed (not the deleted project's any more), one of them shown.
    await page.waitForFunction((n) => {
      const a = document.querySelector('#session-list .session.active');
      return a && a.textContent !== n && !!a.dataset.sessionId;
    }, afterChat.active, { timeout });
    const afterProject = {
      projects: await page.$$eval('#project-select option', (els) => els.map((e) => e.textContent)),
      shown: await page.$eval('#project-select', (e) => e.selectedOptions[0].textContent),
      active: await page.evaluate(activeChat),
      error: await page.$eval('#side-error', (e) => e.textContent),
    };
    await other.waitForFunction((n) => Array.from(document.querySelectorAll('#project-select option'))
      .every((o) => o.textContent !== n), projectBefore, { timeout });
    const otherAfterProject = await other.$eval('#project-select', (e) => e.selectedOptions[0].textContent);
    if (phone) {
      await page.waitForFunction(() => document.getElementById('sidebar').getBoundingClientRect().right <= 1,
        null, { timeout });
    }
    await shot(page, cfg, 'deleted-' + tag);
    await other.close();
    return { status, doomed, otherBefore, chatDialog, afterEscape, secondFocus, afterChat,
      otherAfter, projectBefore, projectDialog, afterProject, otherAfterProject };
  },
});
