import fs from 'node:fs/promises';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject } from '../../../generator/generate.js';
import { signApiKey } from '../../../runtime/tokens/jwt.js';
import { createTestProject, demoSchemaSql, repoRoot, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';

const EXTRA_SQL = `
CREATE TABLE hidden (id int PRIMARY KEY, secret text);
REVOKE ALL ON hidden FROM anon, authenticated, service_role;
CREATE TABLE readonly_notes (id int PRIMARY KEY, note text);
REVOKE ALL ON readonly_notes FROM anon, authenticated;
GRANT SELECT ON readonly_notes TO anon;
`;

let test: TestHost;
let project: TestProject;

beforeAll(async () => {
  test = await startTestHost();
  const demo = await demoSchemaSql();
  project = await createTestProject(test.platform, { sql: `${demo}\n${EXTRA_SQL}`, host: test.host, generate: true });
  await test.host.directory.reload(project.record.ref);
});
afterAll(() => test?.close());

const url = (suffix: string): string => `${project.url}${suffix}`;

describe('GET /v1/<ref>/openapi.json', () => {
  it('refuses a missing key with 401 and the data API error body', async () => {
    const res = await fetch(url('/openapi.json'));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      code: 'PGRST302',
      message: 'No API key found in request',
      details: null,
      hint: 'Open this URL with ?apikey=<anon key>.',
    });
  });

  it('refuses a key of another project with 401', async () => {
    const foreign = signApiKey('another-secret-that-is-long-enough-32', 'anon', 'other', Math.floor(Date.now() / 1000));
    const res = await fetch(url(`/openapi.json?apikey=${foreign}`));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'PGRST301' });
  });

  it('serves the generated document with the server this request reached, valid OpenAPI 3.1', async () => {
    const res = await fetch(url(`/openapi.json?apikey=${project.keys.anon_key}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const served = (await res.json()) as Record<string, unknown> & { servers: unknown; paths: Record<string, unknown> };
    expect(served.servers).toEqual([{ url: project.url, description: `Project ${project.record.ref}` }]);
    const generated = JSON.parse(await fs.readFile(path.join(test.platform.config.generatedDir, project.record.ref, 'openapi.json'), 'utf8')) as Record<string, unknown>;
    expect({ ...served, servers: null }).toEqual({ ...generated, servers: null });
    await expect(SwaggerParser.validate(structuredClone(served) as never)).resolves.toMatchObject({ openapi: '3.1.0' });
  });

  it('shows what some role may use and nothing of the auth schema or of ungranted tables', async () => {
    const res = await fetch(url('/openapi.json'), { headers: { apikey: project.keys.anon_key } });
    const served = (await res.json()) as { paths: Record<string, Record<string, { 'x-roles'?: string[] }>> };
    const restPaths = Object.keys(served.paths).filter((p) => p.startsWith('/rest/v1/')).sort();
    expect(restPaths).toEqual([
      '/rest/v1/authors',
      '/rest/v1/comments',
      '/rest/v1/post_tags',
      '/rest/v1/posts',
      '/rest/v1/readonly_notes',
      '/rest/v1/rpc/add_numbers',
      '/rest/v1/rpc/my_todo_count',
      '/rest/v1/rpc/search_posts',
      '/rest/v1/tags',
      '/rest/v1/todos',
    ]);
    const notes = served.paths['/rest/v1/readonly_notes'] as Record<string, { 'x-roles'?: string[] }>;
    expect(Object.keys(notes).filter((k) => ['get', 'post', 'patch', 'put', 'delete'].includes(k)).sort()).toEqual(['delete', 'get', 'patch', 'post', 'put']);
    expect(notes.get?.['x-roles']).toEqual(['anon', 'service_role']);
    expect(notes.post?.['x-roles']).toEqual(['service_role']);
  });
});

describe('after a migration', () => {
  it('serves the regenerated document without a restart', async () => {
    const client = new pg.Client(test.platform.cluster.urlFor(project.record.databaseName));
    await client.connect();
    try {
      await client.query("ALTER TABLE readonly_notes ADD COLUMN colour text NOT NULL DEFAULT 'red'");
      await client.query("COMMENT ON COLUMN readonly_notes.colour IS 'Added by a migration.'");
    } finally {
      await client.end();
    }
    await generateProject(test.platform, project.record);
    await test.host.directory.reload(project.record.ref);
    const res = await fetch(url(`/openapi.json?apikey=${project.keys.anon_key}`));
    const served = (await res.json()) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    expect(served.components.schemas.readonly_notes?.properties.colour).toEqual({
      type: 'string',
      default: 'red',
      description: "Added by a migration. Default: `'red'::text`.",
      'x-pg-type': 'text',
    });
  });
});

describe('GET /v1/<ref>/docs', () => {
  it('refuses a missing or wrong key with 401', async () => {
    expect((await fetch(url('/docs'))).status).toBe(401);
    const wrong = await fetch(url('/docs?apikey=not-a-jwt'));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'PGRST301' });
  });

  it('renders the page with local assets, the key and a strict content security policy', async () => {
    const res = await fetch(url(`/docs?apikey=${project.keys.anon_key}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    const base = `/v1/${project.record.ref}`;
    expect(html).toContain(`<script src="${base}/docs/assets/swagger-ui-bundle.js"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">`);
    const config = /<script type="application\/json" id="gantry-docs-config">(.*?)<\/script>/.exec(html)?.[1] as string;
    expect(JSON.parse(config)).toEqual({ specUrl: `${base}/openapi.json?apikey=${project.keys.anon_key}`, apiKey: project.keys.anon_key });
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('serves Swagger UI from node_modules and only the listed assets', async () => {
    const bundle = await fetch(url('/docs/assets/swagger-ui-bundle.js'));
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await bundle.text()).toBe(await fs.readFile(path.join(repoRoot, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'), 'utf8'));
    const other = await fetch(url('/docs/assets/package.json'));
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'PGRST125' });
  });
});
