import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, cliOk, jsonObject, servedInstallation, shutDown, type Installation, type Server } from '../helpers/serve-process.js';
import { createProject, eventually, request, uniqueRef, type Answer, type PrintedKeys as Keys } from './projects.js';

/**
 * `gantry project keys rotate` as its own process beside a running `gantry serve`: the server
 * picks the new key up without restart, the old key verifies for the grace period, then not.
 */

// Every CLI run is a fresh Node process: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let inst: Installation;
let server: Server;
let project: Keys;

beforeAll(async () => {
  server = await servedInstallation();
  inst = server.inst;
  project = await createProject(inst, ['--autoconfirm']);
});
afterAll(async () => {
  await shutDown(server);
});

async function signUp(): Promise<string> {
  const answer = await request(`${project.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: project.anon_key, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${uniqueRef('k')}@example.com`, password: 'correct horse battery staple' }),
  });
  expect(answer.status).toBe(200);
  return (answer.body as { access_token: string }).access_token;
}

function jwks(): Promise<Answer> {
  return request(`${project.url}/auth/v1/.well-known/jwks.json`);
}

function kids(answer: Answer): string[] {
  return (answer.body as { keys: { kid: string }[] }).keys.map((key) => key.kid);
}

function getUser(token: string): Promise<Answer> {
  return request(`${project.url}/auth/v1/user`, { headers: { apikey: project.anon_key, Authorization: `Bearer ${token}` } });
}

describe('gantry project keys rotate', () => {
  it('prints the new current key and the previous one with its expiry; the server signs with the new key and refuses the old one once the grace has ended', async () => {
    const oldToken = await signUp();
    const oldKid = decodeProtectedHeader(oldToken).kid as string;
    expect(kids(await jwks())).toEqual([oldKid]);

    const run = await cliOk(['project', 'keys', 'rotate', project.ref, '--grace', '5', '--json'], inst.env);
    expect(run.stderr).toBe('');
    const printed = jsonObject(run) as { current: { kid: string }; previous: { expires_at: string }[] };
    expect(printed).toEqual({
      ref: project.ref,
      current: { kid: expect.any(String), alg: 'ES256' },
      previous: [{ kid: oldKid, alg: 'ES256', expires_at: expect.any(String) }],
      grace_seconds: 5,
    });
    const newKid = printed.current.kid;
    expect(newKid).not.toBe(oldKid);

    await eventually(30_000, jwks, (answer) => JSON.stringify(kids(answer)) === JSON.stringify([oldKid, newKid]));
    expect(decodeProtectedHeader(await signUp()).kid).toBe(newKid);

    // Then the grace period ends on its own: the old token is refused as GoTrue refuses a kid it has no key for.
    const refused = await eventually(60_000, () => getUser(oldToken), (answer) => answer.status !== 200);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error_code: 'bad_jwt' });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(printed.previous[0]!.expires_at));
    expect(kids(await jwks())).toEqual([newKid]);
  });

  it('answers a project that does not exist and a bad --grace or --alg as usage errors, exit 1', async () => {
    const missing = await cli(['project', 'keys', 'rotate', 'no_such_project', '--json'], inst.env);
    expect(missing.code).toBe(1);
    expect(jsonObject(missing)).toEqual({ error: { code: 'project_not_found', message: 'project "no_such_project" does not exist' } });
    const grace = await cli(['project', 'keys', 'rotate', project.ref, '--grace', '1h', '--json'], inst.env);
    expect(grace.code).toBe(1);
    expect(jsonObject(grace)).toEqual({ error: { code: 'usage', message: '--grace expects a whole number of seconds, got "1h"' } });
    const alg = await cli(['project', 'keys', 'rotate', project.ref, '--alg', 'HS256', '--json'], inst.env);
    expect(alg.code).toBe(1);
    expect(jsonObject(alg)).toEqual({ error: { code: 'usage', message: '--alg expects ES256 or RS256, got "HS256"' } });
  });

  it('rotates to an RS256 key with --alg RS256', async () => {
    const run = await cliOk(['project', 'keys', 'rotate', project.ref, '--alg', 'RS256', '--json'], inst.env);
    const kid = (jsonObject(run) as { current: { kid: string; alg: string } }).current;
    expect(kid.alg).toBe('RS256');
    await eventually(30_000, jwks, (answer) => kids(answer).includes(kid.kid));
    const token = await signUp();
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: kid.kid, typ: 'JWT' });
    expect((await getUser(token)).status).toBe(200);
  });
});
