import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, runCli, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';

/** `project config --set api.schemas=…` exposes further schemas on a running host, as PostgREST's `db-schemas`. */

// Every step runs the CLI in its own process, slow on a loaded machine.
const SLOW = 180_000;

const SCHEMA = `
CREATE TABLE public.items (id int PRIMARY KEY);
CREATE SCHEMA extra;
GRANT USAGE ON SCHEMA extra TO anon, authenticated, service_role;
CREATE TABLE extra.notes (id int PRIMARY KEY, body text NOT NULL);
INSERT INTO extra.notes VALUES (1, 'one'), (2, 'two');
GRANT SELECT ON extra.notes TO anon, authenticated;
GRANT ALL ON extra.notes TO service_role;
CREATE SCHEMA "it's ""odd""";
GRANT USAGE ON SCHEMA "it's ""odd""" TO anon, authenticated, service_role;
`;
const ODD = `it's "odd"`;

let t: TestHost;
let project: TestProject;
let generatedDir: string;

beforeAll(async () => {
  t = await startTestHost();
  project = await createTestProject(t.platform, { sql: SCHEMA, host: t.host, generate: true });
  generatedDir = path.join(t.env.GANTRY_GENERATED_DIR!, project.record.ref);
});
afterAll(() => t?.close());

function config(value: string) {
  return runCli(['project', 'config', project.record.ref, '--set', `api.schemas=${value}`, '--json'], t.env);
}

function notes(profile?: string): Promise<Response> {
  const headers: Record<string, string> = { apikey: project.keys.anon_key };
  if (profile !== undefined) headers['Accept-Profile'] = profile;
  return fetch(`${project.url}/rest/v1/notes?select=id,body&order=id`, { headers });
}

async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[path.relative(dir, path.join(entry.parentPath, entry.name))] = await fs.readFile(path.join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

const invalidSchema406 = {
  code: 'PGRST106',
  message: 'Invalid schema: extra',
  details: null,
  hint: 'Only the following schemas are exposed: public',
};

describe('project config --set api.schemas', () => {
  it('starts with public only: Accept-Profile extra is 406 PGRST106', async () => {
    const res = await notes('extra');
    expect([res.status, await res.json()]).toEqual([406, invalidSchema406]);
  }, SLOW);

  it('exposes public and extra: regenerates the code and the running host serves extra within 2 s', async () => {
    const run = await config('public,extra');
    expect([run.code, run.stderr]).toEqual([0, '']);
    const printed = JSON.parse(run.stdout) as { ref: string; settings: Record<string, unknown>; generated: { changed: string[]; removed: string[] } };
    expect(printed.ref).toBe(project.record.ref);
    expect(printed.settings['api.schemas']).toEqual(['public', 'extra']);
    expect(printed.generated.changed).toEqual(expect.arrayContaining(['api.extra.d.ts', 'openapi.extra.json', 'index.ts']));
    expect(printed.generated.removed).toEqual([]);
    expect((await t.platform.getProject(project.record.ref))!.settings['api.schemas']).toEqual(['public', 'extra']);

    await within(2000, async () => (await notes('extra')).status === 200);
    const res = await notes('extra');
    expect([res.status, res.headers.get('content-profile'), await res.json()]).toEqual([
      200,
      'extra',
      [
        { id: 1, body: 'one' },
        { id: 2, body: 'two' },
      ],
    ]);
    const unqualified = await notes();
    expect([unqualified.status, await unqualified.json()]).toEqual([
      404,
      { code: '42P01', message: "Could not find the table 'public.notes' in the schema cache", details: null, hint: null },
    ]);

    const document = await fetch(`${project.url}/openapi.json?profile=extra`, { headers: { apikey: project.keys.anon_key } });
    expect(document.status).toBe(200);
    const onDisk = JSON.parse(await fs.readFile(path.join(generatedDir, 'openapi.extra.json'), 'utf8')) as { paths: Record<string, unknown> };
    // The served document names the host it is served from; the rest is the file.
    expect({ ...((await document.json()) as object), servers: null }).toEqual({ ...onDisk, servers: null });
    expect(Object.keys(onDisk.paths)).toEqual(['/rest/v1/notes']);
  }, SLOW);

  it('refuses invalid lists with exit 1 and a clear message, changing nothing', async () => {
    const before = await snapshot(generatedDir);
    const cases: [string, string][] = [
      ['auth', 'api.schemas: schema "auth" can never be exposed (auth, information_schema and pg_* are not)'],
      ['public,nope', `api.schemas: no schema "nope" in the database of project "${project.record.ref}" (names are exact and case-sensitive)`],
      ['public,Extra', `api.schemas: no schema "Extra" in the database of project "${project.record.ref}" (names are exact and case-sensitive)`],
      ['', 'api.schemas: expected a comma-separated list of schemas, the default profile first (schema names may contain any character except a comma), got ""'],
      ['public,extra,public', 'api.schemas: schema "public" is listed more than once'],
    ];
    // Each run is its own process; none changes anything, so they may run at once.
    const [mixed, ...runs] = await Promise.all([
      runCli(['project', 'config', project.record.ref, '--set', 'auth.autoconfirm=true', '--set', 'api.schemas=public,nope'], t.env),
      ...cases.map(([value]) => config(value)),
    ]);
    expect(runs.map((run) => [run.code, run.stderr, JSON.parse(run.stdout)])).toEqual(
      cases.map(([, message]) => [1, `gantry: ${message}\n`, { error: { code: 'invalid_setting', message } }]),
    );
    expect(mixed.code).toBe(1);
    const record = (await t.platform.getProject(project.record.ref))!;
    expect([record.settings['api.schemas'], record.settings['auth.autoconfirm']]).toEqual([['public', 'extra'], false]);
    expect(await snapshot(generatedDir)).toEqual(before);
  }, SLOW);

  it('takes any schema name without a comma, quotes and all, compared exactly', async () => {
    const run = await config(`extra,${ODD}`);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect((JSON.parse(run.stdout) as { settings: Record<string, unknown> }).settings['api.schemas']).toEqual(['extra', ODD]);
    // extra is now the default profile: no Accept-Profile reads it.
    await within(2000, async () => (await notes()).status === 200);
    expect(await (await notes()).json()).toEqual([
      { id: 1, body: 'one' },
      { id: 2, body: 'two' },
    ]);
  }, SLOW);

  it('back to public: removes the extra files and the running host answers 406 PGRST106 for extra within 2 s', async () => {
    const run = await runCli(['project', 'config', project.record.ref, '--set', 'api.schemas=public'], t.env);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('api.schemas=public\n');
    expect(run.stdout).toMatch(/^regenerated \d+ file\(s\), removed [1-9]\d*$/m);
    const files = Object.keys(await snapshot(generatedDir));
    expect(files.filter((file) => /^(openapi|api)\..+\.(json|d\.ts)$/.test(file))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['openapi.json', 'api.d.ts', 'tables/items.ts']));
    await within(2000, async () => (await notes('extra')).status === 406);
    const res = await notes('extra');
    expect([res.status, await res.json()]).toEqual([406, invalidSchema406]);
  });
});
