import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, cliOk, jsonObject, servedInstallation, shutDown, type Installation, type Server } from '../helpers/serve-process.js';
import { docsExample } from '../helpers/docs-examples.js';
import { createProject, eventually, request, uniqueRef, type Answer, type PrintedKeys as Keys } from '../helpers/blackbox-projects.js';

/**
 * How a project signs its access tokens, set by `project create --signing-alg`, `project keys
 * rotate` and `project config --set auth.signing_alg`, each its own process beside a running
 * `gantry serve`: by default HS256 with the printed jwt_secret (the service document's rule);
 * asymmetric keys on request, picked up without restart, a replaced key verifying for the
 * grace period, then not.
 */

// Every CLI run is a fresh Node process: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let inst: Installation;
let server: Server;
/** Created with --signing-alg ES256. */
let project: Keys;
/** Created with the defaults. */
let plain: Keys;

beforeAll(async () => {
  server = await servedInstallation();
  inst = server.inst;
  [project, plain] = await Promise.all([createProject(inst, ['--autoconfirm', '--signing-alg', 'ES256']), createProject(inst, ['--autoconfirm'])]);
});
afterAll(async () => {
  await shutDown(server);
});

const PASSWORD = 'correct horse battery staple';

function authPost(keys: Keys, pathAndQuery: string, body: unknown): Promise<Answer> {
  return request(`${keys.url}/auth/v1/${pathAndQuery}`, {
    method: 'POST',
    headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function signUp(keys: Keys = project): Promise<string> {
  const answer = await authPost(keys, 'signup', { email: `${uniqueRef('k')}@example.com`, password: PASSWORD });
  expect(answer.status).toBe(200);
  return (answer.body as { access_token: string }).access_token;
}

/** A password sign-in's access token (a new sign-up first). */
async function signIn(keys: Keys): Promise<string> {
  const email = `${uniqueRef('k')}@example.com`;
  expect((await authPost(keys, 'signup', { email, password: PASSWORD })).status).toBe(200);
  const answer = await authPost(keys, 'token?grant_type=password', { email, password: PASSWORD });
  expect(answer.status).toBe(200);
  return (answer.body as { access_token: string }).access_token;
}

function jwksUrl(keys: Keys): string {
  return `${keys.url}/auth/v1/.well-known/jwks.json`;
}

function jwks(keys: Keys = project): Promise<Answer> {
  return request(jwksUrl(keys));
}

function kids(answer: Answer): string[] {
  return (answer.body as { keys: { kid: string }[] }).keys.map((key) => key.kid);
}

function getUser(token: string, keys: Keys = project): Promise<Answer> {
  return request(`${keys.url}/auth/v1/user`, { headers: { apikey: keys.anon_key, Authorization: `Bearer ${token}` } });
}

describe('gantry project create: how access tokens are signed', () => {
  it('by default a password sign-in token verifies with the jwt_secret printed by project create --json (HS256); the JWKS is empty', async () => {
    const token = await signIn(plain);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(plain.jwt_secret), {
      algorithms: ['HS256'],
      issuer: `${plain.url}/auth/v1`,
      audience: 'authenticated',
    });
    expect(payload).toMatchObject({ role: 'authenticated', aal: 'aal1' });
    // docs/auth.md's example, run as the page shows it.
    const example = docsExample('docs/auth.md', 'new TextEncoder().encode(jwt_secret)');
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;
    const run = new AsyncFunction('jwtVerify', 'accessToken', 'jwt_secret', `${example}\nreturn payload;`);
    expect(await run(jwtVerify, token, plain.jwt_secret)).toEqual(payload);
    for (const apiKey of [plain.anon_key, plain.service_key]) {
      expect((await jwtVerify(apiKey, new TextEncoder().encode(plain.jwt_secret), { algorithms: ['HS256'] })).protectedHeader.alg).toBe('HS256');
    }
    expect(await jwks(plain)).toMatchObject({ status: 200, body: { keys: [] } });
  });

  it('with --signing-alg ES256 signs ES256 and its JWKS verifies the token; API keys stay HS256 with the jwt_secret', async () => {
    const token = await signIn(project);
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'JWT' });
    expect(kids(await jwks())).toEqual([header.kid]);
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUrl(project))), { algorithms: ['ES256'], audience: 'authenticated' });
    expect(payload.role).toBe('authenticated');
    await expect(jwtVerify(token, new TextEncoder().encode(project.jwt_secret), { algorithms: ['HS256'] })).rejects.toThrow();
    expect((await jwtVerify(project.anon_key, new TextEncoder().encode(project.jwt_secret), { algorithms: ['HS256'] })).payload.role).toBe('anon');
  });

  it('refuses an unknown --signing-alg as a usage error, exit 1, creating nothing', async () => {
    const ref = uniqueRef('bb');
    const run = await cli(['project', 'create', ref, '--signing-alg', 'HS512', '--json'], inst.env);
    expect(run.code).toBe(1);
    expect(jsonObject(run)).toEqual({ error: { code: 'usage', message: '--signing-alg expects HS256, ES256 or RS256, got "HS512"' } });
    expect((await cli(['project', 'keys', ref, '--json'], inst.env)).code).toBe(1);
  });
});

describe('gantry project keys rotate', () => {
  it('prints the new current key and the previous one with its expiry; the server signs with the new key and refuses the old one once the grace has ended', async () => {
    const oldToken = await signUp();
    expect(decodeProtectedHeader(oldToken).alg).toBe('ES256');
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

  it('--alg RS256 switches a default (HS256) project to an RS256 key; config auth.signing_alg=HS256 switches it back, RS256 tokens still verify', async () => {
    const hs256 = await signUp(plain);
    const run = await cliOk(['project', 'keys', 'rotate', plain.ref, '--alg', 'RS256', '--json'], inst.env);
    const printed = jsonObject(run) as { current: { kid: string; alg: string } };
    expect(printed).toEqual({ ref: plain.ref, current: { kid: expect.any(String), alg: 'RS256' }, previous: [], grace_seconds: 3600 });
    const kid = printed.current.kid;
    await eventually(30_000, () => jwks(plain), (answer) => kids(answer).includes(kid));
    const rs256 = await signUp(plain);
    expect(decodeProtectedHeader(rs256)).toEqual({ alg: 'RS256', kid, typ: 'JWT' });
    await jwtVerify(rs256, createRemoteJWKSet(new URL(jwksUrl(plain))), { algorithms: ['RS256'] });
    expect((await getUser(rs256, plain)).status).toBe(200);
    expect((await getUser(hs256, plain)).status).toBe(200);

    const back = await cliOk(['project', 'config', plain.ref, '--set', 'auth.signing_alg=HS256', '--json'], inst.env);
    expect(jsonObject(back)).toMatchObject({ ref: plain.ref, settings: { 'auth.signing_alg': 'HS256' } });
    const signed = await eventually(30_000, () => authPost(plain, 'signup', { email: `${uniqueRef('k')}@example.com`, password: PASSWORD }), (answer) => {
      const token = (answer.body as { access_token?: string }).access_token;
      return token !== undefined && decodeProtectedHeader(token).alg === 'HS256';
    });
    const token = (signed.body as { access_token: string }).access_token;
    await jwtVerify(token, new TextEncoder().encode(plain.jwt_secret), { algorithms: ['HS256'] });
    expect((await getUser(rs256, plain)).status).toBe(200);
    expect(kids(await jwks(plain))).toEqual([kid]);

    // Asking for ES256 where the current key is RS256 rotates an ES256 key in; the RS256 one verifies for its grace.
    await cliOk(['project', 'config', plain.ref, '--set', 'auth.signing_alg=ES256', '--json'], inst.env);
    const published = await eventually(30_000, () => jwks(plain), (answer) => kids(answer).length === 2);
    const es256 = await signUp(plain);
    expect(decodeProtectedHeader(es256)).toEqual({ alg: 'ES256', kid: kids(published)[1], typ: 'JWT' });
    expect(kids(published)[0]).toBe(kid);
    expect((await getUser(rs256, plain)).status).toBe(200);
  });
});
