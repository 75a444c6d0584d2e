import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../../helpers/platform.js';
import { writeExtensionIn } from '../../helpers/extension-project.js';
import { servedInstallation, shutDown, type Server } from '../../helpers/serve-process.js';
import { createProject, eventually, request, type PrintedKeys } from '../../helpers/blackbox-projects.js';

/**
 * `gantry serve` as a user runs it: an extension written or edited while it serves the project is
 * picked up without a restart; one that does not typecheck or throws at load leaves the served
 * version in place, and the log says why.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let server: Server;
let keys: PrintedKeys;

/** An extension whose afterRead stamps every note with `version`; `extra` goes at the top of the module. */
function noteExtension(ref: string, version: string, extra = ''): string {
  return [
    `import { defineExtension } from '${path.join(repoRoot, 'runtime/index.js')}';`,
    `import type { Database } from '../../generated/${ref}/database.types.js';`,
    extra,
    'export default defineExtension<Database>()({',
    `  tables: { notes: { afterRead: (rows) => rows.map((row) => ({ ...row, version: ${version} })) } },`,
    '});',
    '',
  ].join('\n');
}

/** An extension with just `routes` (the text of its object literal). */
function routeExtension(ref: string, routes: string): string {
  return [
    `import { defineExtension, route, t } from '${path.join(repoRoot, 'runtime/index.js')}';`,
    `import type { Database } from '../../generated/${ref}/database.types.js';`,
    `export default defineExtension<Database>()({ routes: ${routes} });`,
    '',
  ].join('\n');
}

const writeExtension = (text: string): Promise<void> =>
  writeExtensionIn(path.join(server.inst.home, 'extensions'), keys.ref, text);

/** Waits until the server's output has `text`: pino's lines reach the pipe asynchronously. */
const untilLogged = (text: string) =>
  eventually(60_000, async () => ({ status: 0, headers: new Headers(), body: null, text: server.output() }), (a) => a.text.includes(text));

const notes = () => request(`${keys.url}/rest/v1/notes?select=body`, { headers: { apikey: keys.anon_key } });

beforeAll(async () => {
  server = await servedInstallation();
  keys = await createProject(server.inst, ['--schema', path.join(repoRoot, 'test/fixtures/schemas/extensions.sql')]);
  const created = await request(`${keys.url}/rest/v1/notes`, { method: 'POST', headers: { apikey: keys.service_key, 'content-type': 'application/json' }, body: '{"body":"hello"}' });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  if (server) await shutDown(server);
});

describe('extensions under gantry serve', () => {
  it('serves an extension written while the project is served, without a restart', async () => {
    expect((await notes()).body).toEqual([{ body: 'hello' }]);
    await writeExtension(noteExtension(keys.ref, '1'));
    const served = await eventually(60_000, notes, (a) => JSON.stringify(a.body) === '[{"body":"hello","version":1}]');
    expect(served.status).toBe(200);
  });

  it('keeps the served version when an edit does not typecheck, and logs the file and line', async () => {
    await writeExtension(noteExtension(keys.ref, '2', "const count: number = 'two';"));
    await untilLogged('does not typecheck');
    expect(server.output()).toContain(`extensions/${keys.ref}/index.ts:3:7 Type 'string' is not assignable to type 'number'.`);
    expect([(await notes()).status, (await notes()).body]).toEqual([200, [{ body: 'hello', version: 1 }]]);
  });

  it('keeps the served version when an edit throws at load, and logs why and where', async () => {
    await writeExtension(noteExtension(keys.ref, '3', "throw new Error('no configuration for the payment API');"));
    await untilLogged('no configuration for the payment API');
    // The throw site in the extension's own source (line 3, where `extra` goes), not in the bundle that ran.
    expect(server.output()).toContain(`extensions/${keys.ref} failed to load: no configuration for the payment API (at extensions/${keys.ref}/index.ts:3:7)`);
    expect([(await notes()).status, (await notes()).body]).toEqual([200, [{ body: 'hello', version: 1 }]]);
  });

  it('keeps the served version when a GET route takes an input a query string cannot carry, and logs why', async () => {
    await writeExtension(routeExtension(keys.ref,
      "{ search: route({ method: 'GET', input: t.object({ filter: t.object({ body: t.string() }) }), output: t.integer(), handler: () => 1 }) }"));
    await untilLogged('cannot be called');
    expect(server.output()).toContain('cannot be called: its input property');
    expect(server.output()).toContain('must be a string, number, integer, boolean, enum, or an array of one of those');
    expect([(await notes()).status, (await notes()).body]).toEqual([200, [{ body: 'hello', version: 1 }]]);
  });

  it('serves the next edit that loads', async () => {
    await writeExtension(noteExtension(keys.ref, '4'));
    await eventually(60_000, notes, (a) => JSON.stringify(a.body) === '[{"body":"hello","version":4}]');
  });

  it('serves an in-place write to a file an earlier save replaced by a rename (as editors and git checkout do both)', async () => {
    const file = path.join(server.inst.home, 'extensions', keys.ref, 'index.ts');
    await fs.writeFile(`${file}.tmp`, noteExtension(keys.ref, '5'));
    await fs.rename(`${file}.tmp`, file);
    await eventually(60_000, notes, (a) => JSON.stringify(a.body) === '[{"body":"hello","version":5}]');
    await fs.writeFile(file, noteExtension(keys.ref, '6'));
    const served = await eventually(60_000, notes, (a) => JSON.stringify(a.body) === '[{"body":"hello","version":6}]');
    expect(served.status).toBe(200);
  });

  it("logs a hook's own failure with the table, the hook and the throw site in the extension's source, never telling the client", async () => {
    await writeExtension([
      `import { defineExtension } from '${path.join(repoRoot, 'runtime/index.js')}';`,
      `import type { Database } from '../../generated/${keys.ref}/database.types.js';`,
      'export default defineExtension<Database>()({',
      '  tables: {',
      '    notes: {',
      "      afterRead: () => { throw new Error('no exchange rates today'); },",
      '    },',
      '  },',
      '});',
      '',
    ].join('\n'));
    const answer = await eventually(60_000, notes, (a) => a.status === 500);
    expect(answer.body).toEqual({ code: 'PGRSTX00', message: 'Internal server error', details: null, hint: null });
    // The log line may reach the pipe just after the answer does.
    await untilLogged('extension hook notes.afterRead failed');
    expect(server.output()).toContain(`"at":"extensions/${keys.ref}/index.ts:6:32"`);
    // The line names the request the client's answer names.
    const named = await request(`${keys.url}/rest/v1/notes?select=body`, { headers: { apikey: keys.anon_key, 'x-request-id': 'hook-fault-7' } });
    expect([named.status, named.headers.get('x-request-id')]).toEqual([500, 'hook-fault-7']);
    const faultLines = () => server.output().split('\n').filter((line) => line.includes('"extension hook notes.afterRead failed"')).map((line) => JSON.parse(line) as { request_id?: string });
    await eventually(60_000, async () => ({ status: 0, headers: new Headers(), body: null, text: '' }), () => faultLines().some((line) => line.request_id === 'hook-fault-7'));
    expect(faultLines().filter((line) => line.request_id === 'hook-fault-7')).toHaveLength(1);
  });

  it("answers a route's server-side query failure 500 PGRSTX00 and logs it with the route's name, never telling the client", async () => {
    await writeExtension(routeExtension(keys.ref,
      '{ stale: route({ input: t.object({}), output: t.integer(), handler: async (_input, ctx) => (await ctx.sql`SELECT no_such_column FROM public.notes`).length }) }'));
    const stale = () => request(`${keys.url}/functions/v1/stale`, { method: 'POST', headers: { apikey: keys.anon_key, 'content-type': 'application/json' }, body: '{}' });
    const answer = await eventually(60_000, stale, (a) => a.status !== 404 && a.status !== 503);
    expect([answer.status, answer.body]).toEqual([500, { code: 'PGRSTX00', message: 'Internal server error', details: null, hint: null }]);
    await untilLogged('ctx.sql failed with 42703');
    expect(server.output()).toMatch(/extension route \\?"stale\\?" failed/);
    expect(server.output()).toContain('ctx.sql failed with 42703: column \\"no_such_column\\" does not exist');
  });
});
