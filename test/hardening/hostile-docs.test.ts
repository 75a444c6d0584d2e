import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, fixtureSchema, runCli, startTestHost, type TestHost, type TestProject } from '../helpers/platform.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`hostile docs test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const here = import.meta.dirname;

let test: TestHost;
let context: BrowserContext;
let profile: string;

beforeAll(async () => {
  if (!hasChromium) return;
  test = await startTestHost();
  profile = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 } });
}, 180_000);

afterAll(async () => {
  await context?.close();
  await test?.close();
  if (profile) await fs.rm(profile, { recursive: true, force: true });
});

interface Shown {
  /** `METHOD path` of every operation. */
  readonly operations: string[];
  /** Names of the models (`components.schemas`). */
  readonly models: string[];
}

/** Every operation and model of the served document. */
async function documentContents(project: TestProject): Promise<Shown> {
  const res = await fetch(`${project.url}/openapi.json?apikey=${project.keys.anon_key}`);
  expect(res.status).toBe(200);
  const document = (await res.json()) as { paths: Record<string, Record<string, unknown>>; components?: { schemas?: Record<string, unknown> } };
  return {
    operations: Object.entries(document.paths).flatMap(([apiPath, item]) => METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${apiPath}`)).sort(),
    models: Object.keys(document.components?.schemas ?? {}).sort(),
  };
}

/** In the page (the repository compiles without DOM types, hence a string): scroll to `top`, let Swagger UI render, list the operation blocks. */
const SCAN_AT = `async (top) => {
  window.scrollTo(0, top);
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return {
    operations: [...document.querySelectorAll('.opblock')].map((block) =>
      (block.querySelector('.opblock-summary-method')?.textContent ?? '?') + ' ' + (block.querySelector('[data-path]')?.getAttribute('data-path') ?? '?')),
    bottom: top + window.innerHeight >= document.documentElement.scrollHeight,
  };
}`;

/**
 * In the page: the names of every model of the open models section. From 100 models on,
 * Swagger UI renders only those near the view of the section's own scroll box, which is
 * scrolled from top to bottom.
 */
const SCAN_MODELS = `async () => {
  const seen = new Set();
  const box = document.querySelector('section.models .models-scroll');
  for (let top = 0; ; top += 200) {
    if (box) box.scrollTop = top;
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    for (const title of document.querySelectorAll('section.models article[data-json-schema-level="0"] .json-schema-2020-12__title')) seen.add(title.textContent);
    if (!box || top + box.clientHeight >= box.scrollHeight) return [...seen];
  }
}`;

/**
 * Every operation block and model the docs page shows, every tag and the models section
 * expanded. Swagger UI by itself renders only the blocks near the viewport once a document
 * has 150 tags and operations (3 at the top of the page); the page renders them all, which
 * `unscrolled` counts before anything is scrolled. The page is still scrolled from top to
 * bottom and every block seen on the way is counted, so a block missing anywhere shows.
 */
async function pageContents(project: TestProject): Promise<Shown & { unscrolled: number; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  try {
    await page.goto(`${project.url}/docs?apikey=${project.keys.anon_key}`);
    await page.locator('.opblock-tag').first().waitFor({ timeout: 60_000 });
    const closed = page.locator('.opblock-tag[data-is-open="false"]');
    while (await closed.count() > 0) await closed.first().click();
    // Every operation block is in the page from the start, without scrolling to it.
    const unscrolled = await page.locator('.opblock').count();
    if (!(await page.evaluate(`document.querySelector('section.models').classList.contains('is-open')`))) await page.locator('section.models h4').click();
    const operations = new Set<string>();
    for (let y = 0; ; y += 400) {
      const seen = (await page.evaluate(`(${SCAN_AT})(${y})`)) as { operations: string[]; bottom: boolean };
      for (const operation of seen.operations) operations.add(operation);
      if (seen.bottom) break;
    }
    const names = (await page.evaluate(`(${SCAN_MODELS})()`)) as string[];
    return { operations: [...operations].sort(), unscrolled, models: names.sort(), errors };
  } finally {
    await page.close();
  }
}

/** The page shows exactly the operations and models of the served document, without script errors; returns the document's. */
async function expectPageShowsDocument(project: TestProject): Promise<Shown> {
  const expected = await documentContents(project);
  const shown = await pageContents(project);
  expect(shown.errors).toEqual([]);
  expect(shown.operations).toEqual(expected.operations);
  expect(shown.unscrolled).toBe(expected.operations.length);
  expect(shown.models).toEqual(expected.models);
  return expected;
}

describe.skipIf(!hasChromium)('the docs page of a schema whose names and comments carry quotes, backticks, </script>, ${}, newlines and U+2028/9, in Chromium', () => {
  let project: TestProject;
  beforeAll(async () => {
    const sql = [await fixtureSchema('hostile.sql'), await fixtureSchema('hostile-characters.sql')];
    project = await createTestProject(test.platform, { sql: sql.join('\n'), host: test.host, generate: true });
  }, 180_000);

  it('shows every operation and every model of the document', async () => {
    const shown = await expectPageShowsDocument(project);
    expect(shown.operations).toEqual(expect.arrayContaining(['GET /rest/v1/%3C%2Fscript%3E', 'POST /rest/v1/rpc/%3C%2Fscript%3E', 'GET /rest/v1/two%0Alines']));
    // Past both of Swagger UI's thresholds for rendering only what is in view.
    expect(shown.operations.length).toBeGreaterThanOrEqual(150);
    expect(shown.models.length).toBeGreaterThanOrEqual(100);
  }, 120_000);
});

describe.skipIf(!hasChromium)('the docs page of a schema with JavaScript-reserved names, in Chromium', () => {
  let project: TestProject;
  beforeAll(async () => {
    const sql = [await fixtureSchema('hostile.sql'), await fs.readFile(path.join(here, 'hostile-names.sql'), 'utf8')];
    project = await createTestProject(test.platform, { sql: sql.join('\n'), host: test.host, generate: true });
  }, 180_000);

  it('shows every operation and model of the document, names such as __proto__, constructor and toString included', async () => {
    const shown = await expectPageShowsDocument(project);
    expect(shown.operations).toEqual(expect.arrayContaining(['GET /rest/v1/__proto__', 'POST /rest/v1/rpc/constructor', 'GET /rest/v1/toString']));
    // The tables' own models: names of Object.prototype members are suffixed, as other unsafe names are.
    expect(shown.models.filter((name) => /^(?:__proto__|constructor)-[0-9a-f]{8}$/.test(name))).toHaveLength(2);
  }, 120_000);

  it('still shows every operation and model after a migration adding more hostile names (markup, paths, unicode, more Object members)', async () => {
    const migrated = await runCli(['migrate', project.record.ref, path.join(here, 'hostile-migration.sql')], test.env);
    expect(migrated.code, migrated.stderr).toBe(0);
    await test.host.directory.reload(project.record.ref);
    const shown = await expectPageShowsDocument(project);
    expect(shown.operations).toEqual(expect.arrayContaining(['GET /rest/v1/%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'GET /rest/v1/isPrototypeOf']));
  }, 180_000);
});
