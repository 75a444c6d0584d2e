import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealHookSecrets } from '../../../runtime/settings/hook-settings.js';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';

/**
 * Request ids at the HTTP level: a client's `X-Request-Id` kept when short and plain, else one made;
 * returned on every answer of every API, readable in SQL as PostgREST users read it, and sent on the
 * auth hook a request calls.
 */

const schema = `
CREATE TABLE public.notes (id int PRIMARY KEY, body text NOT NULL);
GRANT SELECT ON public.notes TO anon;
CREATE FUNCTION public.my_request_id() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT current_setting('request.headers', true)::json->>'x-request-id'
$$;
GRANT EXECUTE ON FUNCTION public.my_request_id() TO anon;
`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let host: TestHost;
let project: TestProject;
let hookServer: http.Server;
let hookUrl: string;
const hookRequestIds: (string | undefined)[] = [];

async function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; id: string | null; body: string }> {
  const res = await fetch(url, { method, headers: { apikey: project.keys.anon_key, ...headers } });
  return { status: res.status, id: res.headers.get('x-request-id'), body: await res.text() };
}

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: schema, autoconfirm: true, generate: true });
  hookServer = http.createServer((req, res) => {
    hookRequestIds.push(req.headers['x-request-id'] as string | undefined);
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => hookServer?.close(resolve));
  await host?.close();
});

describe('X-Request-Id', () => {
  it("keeps a client's id and makes one otherwise, on the data API's fast path", async () => {
    expect((await get(`${project.url}/rest/v1/notes`, { 'x-request-id': 'client-42:a/b=c' })).id).toBe('client-42:a/b=c');
    const made = await get(`${project.url}/rest/v1/notes`);
    expect([made.status, made.id]).toEqual([200, expect.stringMatching(UUID)]);
  });

  it('replaces an id that is too long or not plain', async () => {
    for (const sent of ['x'.repeat(201), 'has space', 'quote"d', 'ünïcode']) {
      const answer = await get(`${project.url}/rest/v1/notes`, { 'x-request-id': encodeURI(sent) === sent ? sent : sent.replace(/[^\x20-\x7e]/g, '?') });
      expect(answer.id).toMatch(UUID);
    }
    expect((await get(`${project.url}/rest/v1/notes`, { 'x-request-id': 'x'.repeat(200) })).id).toBe('x'.repeat(200));
  });

  it("reaches the transaction: current_setting('request.headers')::json->>'x-request-id', made or sent", async () => {
    const made = await get(`${project.url}/rest/v1/rpc/my_request_id`);
    expect([made.status, JSON.parse(made.body)]).toEqual([200, made.id]);
    const sent = await get(`${project.url}/rest/v1/rpc/my_request_id`, { 'x-request-id': 'from-the-client' });
    expect(JSON.parse(sent.body)).toBe('from-the-client');
    const replaced = await get(`${project.url}/rest/v1/rpc/my_request_id`, { 'x-request-id': 'not ok' });
    expect(JSON.parse(replaced.body)).toBe(replaced.id);
  });

  it('is on every answer: errors, 404s, auth, docs, health, preflights, unknown projects', async () => {
    const urls = [
      `${project.url}/rest/v1/missing_table`,
      `${project.url}/auth/v1/settings`,
      `${project.url}/auth/v1/nowhere`,
      `${project.url}/rest/v1/notes?select=nope`,
      `${project.url}/nowhere`,
      `${project.url}/openapi.json`,
      `${host.host.baseUrl}/health`,
      `${host.host.baseUrl}/v1/no_such_project/rest/v1/notes`,
      `${host.host.baseUrl}/elsewhere`,
    ];
    const answers = await Promise.all(urls.map((url, i) => get(url, { 'x-request-id': `r${i}` })));
    expect(answers.map((answer) => answer.id)).toEqual(urls.map((_url, i) => `r${i}`));
    expect(answers.map((answer) => answer.status)).toEqual([404, 200, 404, 400, 404, 200, 200, 404, 404]);
    const preflight = await get(`${project.url}/rest/v1/notes`, { 'access-control-request-method': 'GET', 'x-request-id': 'pre' }, 'OPTIONS');
    expect([preflight.status, preflight.id]).toEqual([204, 'pre']);
    const calls = await fetch(`${host.host.apiUrl}/v1/calls`, { headers: { 'x-request-id': 'calls-1' } });
    expect([calls.status, calls.headers.get('x-request-id'), ((await calls.json()) as { request_id: string }).request_id]).toEqual([401, 'calls-1', 'calls-1']);
  });

  it("is on the answers Node's HTTP parser refuses: the client's when it was sent, else one made", async () => {
    const port = (new URL(host.host.baseUrl)).port;
    const rawAnswer = (head: string): Promise<string> => new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(Buffer.from(head, 'latin1')));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const idOf = (answer: string): string | undefined => /\r\nX-Request-Id: ([^\r]*)\r\n/.exec(answer)?.[1];
    const target = `/v1/${project.record.ref}/rest/v1/notes?body=eq.\u00e9`;
    const sent = await rawAnswer(`GET ${target} HTTP/1.1\r\nHost: a\r\nX-Request-Id: parser-9\r\n\r\n`);
    expect([sent.slice(0, 12), idOf(sent)]).toEqual(['HTTP/1.1 400', 'parser-9']);
    const made = await rawAnswer(`GET ${target} HTTP/1.1\r\nHost: a\r\nX-Request-Id: not ok\r\n\r\n`);
    expect(idOf(made)).toMatch(UUID);
    const broken = await rawAnswer('GET / HTTP/1.1\r\nHost a\r\n\r\n');
    expect([broken.slice(0, 12), idOf(broken)]).toEqual(['HTTP/1.1 400', expect.stringMatching(UUID)]);
  });

  it('is sent on the auth hook the request calls, made or sent', async () => {
    const name = 'before_user_created';
    await host.platform.setSettings(project.record.ref, {
      [`auth.hook.${name}.enabled`]: true,
      [`auth.hook.${name}.uri`]: `${hookUrl}/before`,
      [`auth.hook.${name}.secrets`]: sealHookSecrets(project.record.jwtSecret, `auth.hook.${name}.secrets`, `v1,whsec_${randomBytes(32).toString('base64')}`),
    });
    await host.host.directory.reload(project.record.ref);
    const signUp = (headers: Record<string, string>) => fetch(`${project.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: project.keys.anon_key, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ email: uniqueEmail('rid'), password: 'secret-pw-1' }),
    });
    const sent = await signUp({ 'x-request-id': 'signup-7' });
    const made = await signUp({});
    expect([sent.status, made.status]).toEqual([200, 200]);
    expect(hookRequestIds).toEqual(['signup-7', made.headers.get('x-request-id')]);
    expect(made.headers.get('x-request-id')).toMatch(UUID);
  });
});
