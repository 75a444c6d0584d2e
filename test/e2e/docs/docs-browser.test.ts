import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, demoSchemaSql, repoRoot, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { EXTRA_SCHEMA_SQL, generateExposing } from '../../helpers/several-schemas.js';

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
  const demo = await demoSchemaSql();
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

/** A new page that collects its script errors. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, errors };
}

/** "Try it out" on the GET of a path with the values the page fills in: the status and body shown. */
async function tryGet(page: Page, apiPath: string): Promise<{ status: string; body: unknown }> {
  const operation = page.locator('.opblock.opblock-get', { has: page.locator(`[data-path="${apiPath}"]`) });
  await operation.locator('.opblock-summary').click();
  await operation.locator('.try-out__btn').click();
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 30_000 });
  const body = await operation.locator('.live-responses-table .response-col_description pre').first().innerText();
  return { status: (await status.innerText()).trim(), body: JSON.parse(body) as unknown };
}

describe.skipIf(!hasChromium)('the docs page in Chromium', () => {
  it('renders every table, runs a "try it" request that returns rows, and loads nothing from other hosts', async () => {
    const { page, errors } = await openPage();
    await page.goto(`${project.url}/docs?apikey=${project.keys.anon_key}`);

    const tags = page.locator('.opblock-tag');
    await tags.first().waitFor({ timeout: 60_000 });
    const tagNames = (await tags.allInnerTexts()).map((text) => text.split('\n')[0]?.trim());
    expect(tagNames).toEqual(expect.arrayContaining(['authors', 'comments', 'post_tags', 'posts', 'tags', 'todos', 'Functions (RPC)', 'Auth']));
    await fs.mkdir(path.join(repoRoot, 'test-output'), { recursive: true });
    await page.screenshot({ path: path.join(repoRoot, 'test-output/docs-page.png') });

    const { status, body } = await tryGet(page, '/rest/v1/authors');
    expect(status).toBe('200');
    expect((body as { name: string }[]).map((row) => row.name)).toEqual(['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);

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

describe.skipIf(!hasChromium)('the docs page of a project exposing two schemas, in Chromium', () => {
  it('offers both schemas in the selector, and "try it" on the second sends its profile header and returns its rows', async () => {
    const demo = await demoSchemaSql();
    const several = await createTestProject(test.platform, { sql: `${demo}\n${EXTRA_SCHEMA_SQL}` });
    await generateExposing(test.platform, several.record, ['public', 'extra']);
    await test.host.directory.reload(several.record.ref);
    const url = `${test.host.baseUrl}/v1/${several.record.ref}`;
    const { page, errors } = await openPage();
    const profiles: (string | null)[] = [];
    page.on('request', (request) => {
      const address = new URL(request.url());
      if (address.pathname === `/v1/${several.record.ref}/openapi.json`) profiles.push(address.searchParams.get('profile'));
    });
    await page.goto(`${url}/docs?apikey=${several.keys.anon_key}`);

    const selector = page.locator('.topbar select#select');
    await selector.waitFor({ timeout: 60_000 });
    expect(await selector.locator('option').allInnerTexts()).toEqual(['public (default)', 'extra']);
    const tags = page.locator('.opblock-tag');
    await page.locator('.opblock-tag', { hasText: 'authors' }).first().waitFor({ timeout: 60_000 });

    await selector.selectOption({ label: 'extra' });
    await page.locator('.opblock-tag', { hasText: 'Functions (RPC)' }).first().waitFor({ timeout: 60_000 });
    await page.locator('.opblock-tag', { hasText: 'authors' }).first().waitFor({ state: 'detached', timeout: 30_000 });
    expect((await tags.allInnerTexts()).map((text) => text.split('\n')[0]?.trim())).toEqual(['todos', 'Functions (RPC)']);
    expect(profiles).toEqual([null, 'extra']);

    // The data API's default schema has its own todos: these rows come only with Accept-Profile: extra.
    expect(await tryGet(page, '/rest/v1/todos')).toEqual({ status: '200', body: [{ id: 1, label: 'first' }, { id: 2, label: 'second' }] });
    await page.screenshot({ path: path.join(repoRoot, 'test-output/docs-two-schemas.png') });

    const origin = new URL(url).origin;
    expect(requested.filter((address) => !address.startsWith('data:') && new URL(address).origin !== origin)).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
