import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealHookSecrets } from '../../../runtime/settings/hook-settings.js';
import { createApiKey } from '../../../runtime/calls/keys.js';
import { createLogger, prettyLine } from '../../../runtime/logger.js';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';

/**
 * The host's log lines at debug level: one JSON shape for access lines (ref, api, method, route
 * template, status, duration, request id), the request id on error lines, and never a token,
 * password, API key or sealed value.
 */

const schema = `
CREATE TABLE public.notes (id int PRIMARY KEY, body text NOT NULL);
GRANT SELECT ON public.notes TO anon, authenticated;
`;

let host: TestHost;
let project: TestProject;
const written: string[] = [];
const lines = (): Record<string, unknown>[] => written.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => { written.push(chunk.toString('utf8')); done(); } });
  host = await startTestHost({}, { log: createLogger('debug', sink) });
  project = await createTestProject(host.platform, { host: host.host, sql: schema, autoconfirm: true, generate: true });
});
afterAll(() => host?.close());

async function send(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${project.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { apikey: project.keys.anon_key, 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('log lines', () => {
  it('access lines have one shape with the route template, never the path or query string', async () => {
    written.length = 0;
    await send('/rest/v1/notes?id=eq.12345&select=body', { headers: { 'x-request-id': 'log-rest' } });
    await send('/auth/v1/admin/users/5b3c0c0e-8d1e-4c8e-9d55-111111111111', { headers: { 'x-request-id': 'log-auth', apikey: project.keys.service_key, authorization: `Bearer ${project.keys.service_key}` } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const access = lines().filter((line) => line.msg === 'request');
    expect(access.map(({ time: _time, level: _level, duration_ms, ...rest }) => ({ ...rest, duration: typeof duration_ms }))).toEqual([
      { msg: 'request', ref: project.record.ref, api: 'rest', method: 'GET', route: '/v1/:ref/rest/v1/:relation', status: 200, request_id: 'log-rest', duration: 'number' },
      { msg: 'request', ref: project.record.ref, api: 'auth', method: 'GET', route: '/v1/:ref/auth/v1/admin/users/:id', status: 404, request_id: 'log-auth', duration: 'number' },
    ]);
    expect(written.join('')).not.toContain('12345');
    expect(written.join('')).not.toContain('5b3c0c0e');
  });

  it('never writes tokens, passwords, API keys or sealed values, at debug level', async () => {
    written.length = 0;
    const email = uniqueEmail('logs');
    const password = `pw-${randomBytes(9).toString('hex')}`;
    const sealed = sealHookSecrets(project.record.jwtSecret, 'auth.hook.send_email.secrets', `v1,whsec_${randomBytes(32).toString('base64')}`);
    await host.platform.setSettings(project.record.ref, { 'auth.hook.send_email.secrets': sealed });
    await host.host.directory.reload(project.record.ref);
    const signUp = await send('/auth/v1/signup', { method: 'POST', body: { email, password } });
    expect([signUp.status, signUp.body.msg]).toEqual([200, undefined]);
    const signIn = await send('/auth/v1/token?grant_type=password', { method: 'POST', body: { email, password } });
    expect([signIn.status, signIn.body.msg]).toEqual([200, undefined]);
    const refreshed = await send('/auth/v1/token?grant_type=refresh_token', { method: 'POST', body: { refresh_token: signIn.body.refresh_token } });
    expect([refreshed.status, refreshed.body.msg]).toEqual([200, undefined]);
    const wrong = await send('/auth/v1/token?grant_type=password', { method: 'POST', body: { email, password: `${password}-wrong` } });
    expect(wrong.status).toBe(400);
    const read = await send('/rest/v1/notes', { headers: { authorization: `Bearer ${refreshed.body.access_token as string}` } });
    expect(read.status).toBe(200);
    const bad = await send('/rest/v1/notes', { headers: { authorization: `Bearer ${refreshed.body.access_token as string}x` } });
    expect(bad.status).toBe(401);
    await send(`/rest/v1/notes?apikey=${project.keys.anon_key}`, { headers: { apikey: '' } });
    const { key } = await createApiKey(host.platform.pool, `tenant_${randomBytes(4).toString('hex')}`);
    const calls = await fetch(`${host.host.apiUrl}/v1/calls`, { headers: { authorization: `Bearer ${key}` } });
    expect(calls.status).toBe(200);
    await fetch(`${host.host.apiUrl}/v1/calls`, { headers: { authorization: `Bearer ${key.slice(0, -4)}AAAA` } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const out = written.join('');
    expect(lines().filter((line) => line.msg === 'request' || line.msg === 'calls request')).toHaveLength(9);
    const secrets = {
      password,
      access_token: signIn.body.access_token as string,
      refreshed_token: refreshed.body.access_token as string,
      refresh_token: signIn.body.refresh_token as string,
      anon_key: project.keys.anon_key,
      calls_key: key,
      sealed,
      jwt_secret: project.record.jwtSecret,
    };
    expect(Object.entries(secrets).filter(([, secret]) => out.includes(secret)).map(([name]) => name)).toEqual([]);
    // Each JWT's signature alone must not appear either.
    expect([secrets.access_token, secrets.refreshed_token, secrets.anon_key].filter((token) => out.includes(token.split('.')[2]!))).toEqual([]);
  });
});

describe('LOG_FORMAT=pretty', () => {
  it('prints time, level, message and the fields', () => {
    const line = JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 28, 16, 5, 7, 123), msg: 'request', ref: 'demo', api: 'rest', status: 200, request_id: 'r1' });
    expect(prettyLine(line)).toBe('16:05:07.123 INFO  request ref=demo api=rest status=200 request_id=r1\n');
  });
});
