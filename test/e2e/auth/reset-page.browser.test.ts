import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESET_MESSAGE } from '../../../runtime/auth/routes/recovery.js';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { linkFrom } from '../../helpers/auth/smtp-capture.js';

/** The password-reset page of the recovery link, driven in a real browser (CSP, inline script, POST /reset). */

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => existsSync(candidate));

let suite: AuthSuite;
let project: AuthProject;
let browser: Browser;

describe.skipIf(CHROMIUM === undefined)('reset page in Chromium (skipped: no chromium binary installed)', () => {
  beforeAll(async () => {
    suite = await AuthSuite.open();
    project = await suite.project({ autoconfirm: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await suite?.close();
  });

  it('sets a new password from the mailed link', async () => {
    const email = uniqueEmail('browser');
    await project.call('POST', '/signup', { body: { email, password: 'old-password' } });
    await project.call('POST', '/recover', { body: { email } });
    const link = linkFrom(await suite.smtp.waitFor(email, 'Reset'));

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(link.href);
    expect(await page.locator('h1').textContent()).toBe('Choose a new password');

    await page.fill('#password', 'new-password-1');
    await page.fill('#confirm', 'different-one');
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('#status').textContent()).toBe('The two passwords differ.');

    await page.fill('#confirm', 'new-password-1');
    await page.click('button[type=submit]');
    // The reset is a request (bcrypt in a worker): on a loaded machine it takes longer than poll's default second.
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe(RESET_MESSAGE);
    expect(await page.locator('#password').isDisabled()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();

    const signIn = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'new-password-1' } });
    expect(signIn.status).toBe(200);
  });
});
