import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, repoRoot, runCli, startTestHost, type TestHost, type TestProject } from '../helpers/platform.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`hostile docs test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const here = import.meta.dirname;

let test: TestHost;
let project: TestProject;
let context: BrowserContext;
let profile: string;

beforeAll(async () => {
  if (!hasChromium) return;
  test = await startTestHost();
  const sql = await Promise.all(['test/fixtures/schemas/hostile.sql', 'test/hardening/hostile-names.sql'].map((file) => fs.readFile(path.join(repoRoot, file), 'utf8')));
  project = await createTestProject(test.platform, { sql: sql.join('\n'), host: test.host, generate: true });
  profile = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 } });
}, 180_000);

afterAll(async () => {
  await context?.close();
  await test?.close();
  if (profile) await fs.rm(profile, { recursive: true, force: true });
});

/** `METHOD path` of every operation of the served document. */
async function documentOperations(): Promise<string[]> {
  const res = await fetch(`${project.url}/openapi.json?apikey=${project.keys.anon_key}`);
  expect(res.status).toBe(200);
  const document = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths).flatMap(([apiPath, item]) => METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${apiPath}`)).sort();
}

/** In the page (the repository compiles without DOM types, hence a string): scroll to `top`, let Swagger UI render, list the operation blocks. */
const SCAN_AT = `async (top) => {
  window.scrollTo(0, top);
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return {
    blocks: [...document.querySelectorAll('.opblock')].map((block) =>
      (block.querySelector('.opblock-summary-method')?.textContent ?? '?') + ' ' + (block.querySelector('[data-path]')?.getAttribute('data-path') ?? '?')),
    bottom: top + window.innerHeight >= document.documentElement.scrollHeight,
  };
}`;

/**
 * `METHOD path` of every operation block the docs page shows, every tag expanded. Swagger UI
 * renders only the blocks near the viewport once a document has 150 tags and operations, so
 * the page is scrolled from top to bottom and every block seen on the way is counted.
 */
async function pageOperations(): Promise<{ operations: string[]; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    await page.goto(`${project.url}/docs?apikey=${project.keys.anon_key}`);
    await page.locator('.opblock-tag').first().waitFor({ timeout: 60_000 });
    const closed = page.locator('.opblock-tag[data-is-open="false"]');
    while (await closed.count() > 0) await closed.first().click();
    const seen = new Set<string>();
    for (let y = 0; ; y += 400) {
      const { blocks, bottom } = (await page.evaluate(`(${SCAN_AT})(${y})`)) as { blocks: string[]; bottom: boolean };
      for (const block of blocks) seen.add(block);
      if (bottom) break;
    }
    return { operations: [...seen].sort(), errors };
  } finally {
    await page.close();
  }
}

describe.skipIf(!hasChromium)('the docs page of a schema with hostile names, in Chromium', () => {
  it('shows every operation of the document, names such as __proto__, constructor and toString included', async () => {
    const expected = await documentOperations();
    expect(expected).toEqual(expect.arrayContaining(['GET /rest/v1/__proto__', 'POST /rest/v1/rpc/constructor', 'GET /rest/v1/toString']));
    const { operations, errors } = await pageOperations();
    expect(errors).toEqual([]);
    expect(operations).toEqual(expected);
  }, 120_000);

  it('still shows every operation after a migration adding more hostile names (markup, paths, unicode, more Object members)', async () => {
    const migrated = await runCli(['migrate', project.record.ref, path.join(here, 'hostile-migration.sql')], test.env);
    expect(migrated.code, migrated.stderr).toBe(0);
    await test.host.directory.reload(project.record.ref);
    const expected = await documentOperations();
    expect(expected).toEqual(expect.arrayContaining(['GET /rest/v1/%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'GET /rest/v1/isPrototypeOf']));
    const { operations, errors } = await pageOperations();
    expect(operations).toEqual(expected);
    expect(errors).toEqual([]);
  }, 180_000);
});
