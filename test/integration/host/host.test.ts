import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, deleteProject } from '../../../runtime/platform/bootstrap.js';
import { randomRef, startTestHost, type TestHost } from '../../helpers/platform.js';

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t.close();
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

describe('project host', () => {
  it('answers /health on both listeners', async () => {
    const host = await fetch(`${t.host.baseUrl}/health`);
    expect(host.status).toBe(200);
    expect(await host.json()).toMatchObject({ status: 'ok' });
    const calls = await fetch(`${t.host.apiUrl}/health`);
    expect(calls.status).toBe(200);
    expect(await calls.json()).toEqual({ status: 'ok' });
  });

  it('answers an unknown ref with a JSON 404', async () => {
    const res = await fetch(`${t.host.baseUrl}/v1/nosuchproject/rest/v1/things`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ message: 'project "nosuchproject" not found', code: 'PGRST125', details: null, hint: null });
  });

  it('serves a project created while running within 2 s, and drops it when deleted', async () => {
    const ref = randomRef();
    const url = `${t.host.baseUrl}/v1/${ref}/rest/v1/nothing`;
    expect((await fetch(url)).status).toBe(404);
    await createProject(t.platform, { ref, schemaFiles: [] });
    const served = await waitFor(async () => t.host.directory.get(ref) !== undefined, 2000);
    expect(served).toBeLessThan(2000);
    const res = await fetch(url);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'PGRST125', message: `no route for GET /rest/v1/nothing in project "${ref}"` });

    await deleteProject(t.platform, ref);
    await waitFor(async () => t.host.directory.get(ref) === undefined, 2000);
    expect(await (await fetch(url)).json()).toMatchObject({ message: `project "${ref}" not found` });
  });

  it('answers CORS preflight on every route and exposes Content-Range', async () => {
    const res = await fetch(`${t.host.baseUrl}/v1/whatever/rest/v1/things`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'apikey, content-type, prefer' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.example');
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(res.headers.get('access-control-allow-headers')).toBe('apikey, content-type, prefer');
    const get = await fetch(`${t.host.baseUrl}/health`, { headers: { origin: 'http://app.example' } });
    expect(get.headers.get('access-control-expose-headers')).toContain('Content-Range');
  });
});
