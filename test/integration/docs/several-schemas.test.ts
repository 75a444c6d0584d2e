import fs from 'node:fs/promises';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitProject } from '../../../generator/emit/project.js';
import { introspectProject } from '../../../generator/introspect/introspect.js';
import { createTestProject, demoSchemaSql, repoRoot, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { EXTRA_SCHEMA_SQL, generateExposing } from '../../helpers/several-schemas.js';
import { compileStrict } from '../../helpers/typescript.js';

/**
 * A project exposing a second schema (`extra`, with a table named like one of the demo's):
 * one document per schema, served by `Accept-Profile` as the data API reads it (or `?profile=`), offered
 * by the docs page's selector, and typed clients for the second schema.
 */

const EXTRA_CLIENT = `
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api.extra.js';

export async function run(projectUrl: string, anonKey: string) {
  const client = createClient<paths, 'application/json'>({ baseUrl: projectUrl, headers: { apikey: anonKey } });
  const todos = await client.GET('/rest/v1/todos', {
    params: { header: { 'Accept-Profile': 'extra' }, query: { select: 'id,label', order: 'id.asc' } },
  });
  if (todos.error) throw new Error(todos.error.message);
  const labels: string[] = todos.data.map((todo) => todo.label);
  const label = await client.GET('/rest/v1/rpc/label_of', { params: { header: { 'Accept-Profile': 'extra' }, query: { todo_id: 2 } } });
  if (label.error) throw new Error(label.error.message);
  return { labels, label: label.data };
}

/** Never called: each line must fail to compile. */
export function typeErrors(client: Client<paths, 'application/json'>) {
  // @ts-expect-error: the profile header is required
  void client.GET('/rest/v1/todos', { params: { query: { select: 'id' } } });
  // @ts-expect-error: this document is the schema extra only
  void client.GET('/rest/v1/todos', { params: { header: { 'Accept-Profile': 'public' } } });
}
`;

let test: TestHost;
let project: TestProject;
let url: string;
let generated: Map<string, string>;
let dir: string;

beforeAll(async () => {
  test = await startTestHost();
  const demo = await demoSchemaSql();
  project = await createTestProject(test.platform, { sql: `${demo}\n${EXTRA_SCHEMA_SQL}` });
  generated = await generateExposing(test.platform, project.record, ['public', 'extra']);
  await test.host.directory.reload(project.record.ref);
  url = `${test.host.baseUrl}/v1/${project.record.ref}`;
  dir = path.join(repoRoot, 'test-output', 'several-schemas', project.record.ref);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'api.extra.d.ts'), generated.get('api.extra.d.ts') as string);
  await fs.writeFile(path.join(dir, 'extra-client.ts'), EXTRA_CLIENT);
}, 120_000);

afterAll(async () => {
  await test?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

type Document = Record<string, unknown> & {
  servers: unknown;
  paths: Record<string, Record<string, { parameters?: { $ref?: string }[] }>>;
};

async function served(headers: Record<string, string> = {}, query = ''): Promise<{ status: number; profile: string | null; body: Document }> {
  const res = await fetch(`${url}/openapi.json?apikey=${project.keys.anon_key}${query}`, { headers });
  return { status: res.status, profile: res.headers.get('content-profile'), body: (await res.json()) as Document };
}

describe('a project exposing two schemas', () => {
  it('generates one valid, deterministic document per schema', async () => {
    expect([...generated.keys()].filter((file) => /^(openapi|api)\b/.test(file))).toEqual(['api.d.ts', 'api.extra.d.ts', 'openapi.extra.json', 'openapi.json']);
    for (const file of ['openapi.json', 'openapi.extra.json']) {
      await expect(SwaggerParser.validate(JSON.parse(generated.get(file) as string) as never)).resolves.toMatchObject({ openapi: '3.1.0' });
    }
    const client = new pg.Client(test.platform.cluster.urlFor(project.record.databaseName));
    await client.connect();
    try {
      const again = emitProject(await introspectProject(client, { schemas: ['public', 'extra'] }), { ref: project.record.ref });
      expect(again.get('openapi.extra.json')).toBe(generated.get('openapi.extra.json'));
      expect(again.get('api.extra.d.ts')).toBe(generated.get('api.extra.d.ts'));
    } finally {
      await client.end();
    }
  });

  it('serves the default schema without Accept-Profile and the other schema with it, as generated', async () => {
    const main = await served();
    expect(main.status).toBe(200);
    expect(main.profile).toBe('public');
    expect({ ...main.body, servers: null }).toEqual({ ...(JSON.parse(generated.get('openapi.json') as string) as object), servers: null });
    expect(main.body.paths['/rest/v1/todos']?.get?.parameters?.[0]).toEqual({ $ref: '#/components/parameters/select' });

    const extra = await served({ 'Accept-Profile': 'extra' });
    expect(extra.status).toBe(200);
    expect(extra.profile).toBe('extra');
    expect(extra.body.servers).toEqual([{ url, description: `Project ${project.record.ref}` }]);
    expect({ ...extra.body, servers: null }).toEqual({ ...(JSON.parse(generated.get('openapi.extra.json') as string) as object), servers: null });
    expect(Object.keys(extra.body.paths)).toEqual(['/rest/v1/rpc/label_of', '/rest/v1/todos']);
    expect(extra.body.paths['/rest/v1/todos']?.get?.parameters?.[0]).toEqual({ $ref: '#/components/parameters/Accept-Profile' });
    expect(extra.body.paths['/rest/v1/todos']?.post?.parameters?.[0]).toEqual({ $ref: '#/components/parameters/Content-Profile' });
    await expect(SwaggerParser.validate(structuredClone(extra.body) as never)).resolves.toMatchObject({ openapi: '3.1.0' });

    expect((await served({ 'Accept-Profile': 'public' })).body).toEqual(main.body);
    expect(await served({}, '&profile=extra')).toEqual(extra);
    // The header wins over the query parameter, as it does for the key.
    expect(await served({ 'Accept-Profile': 'public' }, '&profile=extra')).toEqual(main);
  });

  it('refuses a schema that is not exposed with 406 PGRST106, as the data API does', async () => {
    const expected = {
      code: 'PGRST106',
      message: 'Invalid schema: auth',
      details: null,
      hint: 'Only the following schemas are exposed: public, extra',
    };
    const docs = await fetch(`${url}/openapi.json?apikey=${project.keys.anon_key}`, { headers: { 'Accept-Profile': 'auth' } });
    expect(docs.status).toBe(406);
    expect(await docs.json()).toEqual(expected);
    const byQuery = await fetch(`${url}/openapi.json?apikey=${project.keys.anon_key}&profile=auth`);
    expect(byQuery.status).toBe(406);
    expect(await byQuery.json()).toEqual(expected);
    const data = await fetch(`${url}/rest/v1/todos`, { headers: { apikey: project.keys.anon_key, 'Accept-Profile': 'auth' } });
    expect(data.status).toBe(406);
    expect(await data.json()).toEqual(expected);
  });

  it('offers both documents on the docs page, each at its own URL', async () => {
    const res = await fetch(`${url}/docs?apikey=${project.keys.anon_key}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const base = `/v1/${project.record.ref}`;
    expect(html).toContain(`<script src="${base}/docs/assets/swagger-ui-standalone-preset.js"></script>`);
    const config = /<script type="application\/json" id="gantry-docs-config">(.*?)<\/script>/.exec(html)?.[1] as string;
    const specUrl = `${base}/openapi.json?apikey=${project.keys.anon_key}`;
    expect(JSON.parse(config)).toEqual({
      specUrl,
      apiKey: project.keys.anon_key,
      specs: [
        { name: 'public (default)', url: specUrl },
        { name: 'extra', url: `${specUrl}&profile=extra` },
      ],
    });
    const preset = await fetch(`${url}/docs/assets/swagger-ui-standalone-preset.js`);
    expect(preset.status).toBe(200);
    expect(preset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await preset.text()).toBe(await fs.readFile(path.join(repoRoot, 'node_modules/swagger-ui-dist/swagger-ui-standalone-preset.js'), 'utf8'));
  });

  it('types a client of the second schema with api.extra.d.ts that must send the profile, and runs it', async () => {
    expect(compileStrict([path.join(dir, 'extra-client.ts')])).toEqual([]);
    const { run } = (await import(path.join(dir, 'extra-client.ts'))) as { run: (url: string, key: string) => Promise<unknown> };
    expect(await run(url, project.keys.anon_key)).toEqual({ labels: ['first', 'second'], label: 'second' });
  }, 120_000);
});
