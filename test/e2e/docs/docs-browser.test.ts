import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, repoRoot, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`docs browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

let test: TestHost;
let project: TestProject;
let context: BrowserContext;
let profile: string;
const requested: string[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  test = await startTestHost();
  const demo = await fs.readFile(path.join(repoRoot, 'runtime/platform/demo/schema.sql'), 'utf8');
  project = await createTestProject(test.platform, { sql: demo, host: test.host, generate: true });
  await test.host.directory.reload(project.record.ref);
  profile = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 1600 } });
  context.on('request', (request) => requested.push(request.url()));
}, 180_000);

afterAll(async () => {
  await context?.close();
  await test?.close();
  if (profile) await fs.rm(profile, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)('the docs page in Chromium', () => {
  it('renders every table, runs a "try it" request that returns rows, and loads nothing from other hosts', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${project.url}/docs?apikey=${project.keys.anon_key}`);

    const tags = page.locator('.opblock-tag');
    await tags.first().waitFor({ timeout: 60_000 });
    const tagNames = (await tags.allInnerTexts()).map((text) => text.split('\n')[0]?.trim());
    expect(tagNames).toEqual(expect.arrayContaining(['authors', 'comments', 'post_tags', 'posts', 'tags', 'todos', 'Functions (RPC)', 'Auth']));
    await fs.mkdir(path.join(repoRoot, 'test-output'), { recursive: true });
    await page.screenshot({ path: path.join(repoRoot, 'test-output/docs-page.png') });

    const operation = page.locator('.opblock.opblock-get', { has: page.locator('[data-path="/rest/v1/authors"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.innerText()).trim()).toBe('200');
    const body = await operation.locator('.live-responses-table .response-col_description pre').first().innerText();
    const rows = JSON.parse(body) as { id: number; name: string }[];
    expect(rows.map((row) => row.name)).toEqual(['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);

    await page.screenshot({ path: path.join(repoRoot, 'test-output/docs-try-it.png') });

    const origin = new URL(project.url).origin;
    const foreign = requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
    expect(foreign).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([
      `${project.url}/docs/assets/swagger-ui-bundle.js`,
      `${project.url}/openapi.json?apikey=${project.keys.anon_key}`,
      `${project.url}/rest/v1/authors`,
    ]));
    expect(errors).toEqual([]);
  }, 120_000);
});
