import type { SupabaseClient } from '@supabase/supabase-js';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessTokenAlg } from '../../../runtime/tokens/keyring.js';
import { generateSigningKey, rotateSigningKey } from '../../../runtime/platform/signing-keys.js';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';
import { isolatedClient } from './isolated-client.js';

/**
 * Per-project asymmetric signing keys (`--signing-alg ES256`) through a running host: ES256 access tokens, the JWKS,
 * supabase-js getClaims() verifying locally, and rotation picked up from the registry's
 * NOTIFY with the old key accepted for its grace period only.
 */

const schema = `CREATE FUNCTION public.whoami() RETURNS text LANGUAGE sql STABLE AS $$ SELECT auth.role() || ':' || coalesce(auth.uid()::text, '') $$;`;

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host?.close());

function newProject(signingAlg: AccessTokenAlg = 'ES256'): Promise<TestProject> {
  return createTestProject(host.platform, { host: host.host, sql: schema, autoconfirm: true, generate: true, signingAlg });
}

/** The paths (under the project's URL) a client requested, in order. */
interface RequestLog {
  readonly paths: string[];
  readonly fetch: typeof fetch;
}

function requestLog(project: TestProject): RequestLog {
  const paths: string[] = [];
  return {
    paths,
    fetch: (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      paths.push(url.pathname.slice(new URL(project.url).pathname.length));
      return fetch(input, init);
    },
  };
}

function client(project: TestProject, log?: RequestLog): SupabaseClient {
  return isolatedClient(project, log?.fetch);
}

async function signUp(project: TestProject, supabase: SupabaseClient = client(project)): Promise<{ token: string; userId: string }> {
  const { data, error } = await supabase.auth.signUp({ email: uniqueEmail('keys'), password: 'secret-pw-1' });
  expect(error).toBeNull();
  return { token: data.session!.access_token, userId: data.user!.id };
}

function jwksUrl(project: TestProject): string {
  return `${project.url}/auth/v1/.well-known/jwks.json`;
}

async function jwksKids(project: TestProject): Promise<string[]> {
  const res = await fetch(jwksUrl(project));
  expect(res.status).toBe(200);
  return ((await res.json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
}

/** Polls the JWKS until it lists exactly `kids`: the host has reloaded the project from the registry. */
async function waitForKids(project: TestProject, kids: readonly string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = await jwksKids(project);
    if (JSON.stringify(seen) === JSON.stringify(kids)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(seen).toEqual(kids);
}

async function getUser(project: TestProject, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${project.url}/auth/v1/user`, { headers: { apikey: project.keys.anon_key, Authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function whoami(project: TestProject, token: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${project.url}/rest/v1/rpc/whoami`, {
    method: 'POST',
    headers: { apikey: project.keys.anon_key, Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return { status: res.status, body: await res.json() };
}

function unknownKid(kid: string): Record<string, unknown> {
  return {
    code: 403,
    error_code: 'bad_jwt',
    msg: `invalid JWT: unable to parse or verify signature, token is unverifiable: error while executing keyfunc: unrecognized JWT kid ${kid} for algorithm ES256`,
  };
}

const noSuitableKey = { code: 'PGRST301', message: 'No suitable key or wrong key type', details: null, hint: null };

describe('signing keys', () => {
  it('a project created with ES256 signs access tokens with ES256; its public JWKS verifies them with jose; the data API and /user accept them', async () => {
    const project = await newProject();
    const { token, userId } = await signUp(project);
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'JWT' });

    const res = await fetch(jwksUrl(project));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
    const jwks = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toEqual([
      { kid: header.kid, alg: 'ES256', kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), use: 'sig', key_ops: ['verify'] },
    ]);

    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUrl(project))), {
      issuer: `${project.url}/auth/v1`,
      audience: 'authenticated',
      algorithms: ['ES256'],
    });
    expect(payload).toMatchObject({ sub: userId, role: 'authenticated', is_anonymous: false });

    expect(await whoami(project, token)).toEqual({ status: 200, body: `authenticated:${userId}` });
    expect(await whoami(project, project.keys.anon_key)).toEqual({ status: 200, body: 'anon:' });
    expect((await getUser(project, token)).body.id).toBe(userId);
    expect(decodeProtectedHeader(project.keys.anon_key)).toEqual({ alg: 'HS256', typ: 'JWT' });
  });

  it('supabase-js getClaims() verifies locally: one JWKS request, then none, and never /user', async () => {
    const project = await newProject();
    const log = requestLog(project);
    const supabase = client(project, log);
    const { userId } = await signUp(project, supabase);
    log.paths.length = 0;

    const first = await supabase.auth.getClaims();
    expect(first.error).toBeNull();
    expect(first.data?.claims).toMatchObject({ sub: userId, role: 'authenticated' });
    expect(first.data?.header.alg).toBe('ES256');
    const second = await supabase.auth.getClaims();
    expect(second.data?.claims.sub).toBe(userId);
    expect(log.paths).toEqual(['/auth/v1/.well-known/jwks.json']);
  });

  it('rotation: hosts pick the new key up without restart; the old key verifies during its grace period and not after', async () => {
    const project = await newProject();
    const { token: oldToken, userId } = await signUp(project);
    const oldKid = decodeProtectedHeader(oldToken).kid as string;
    await waitForKids(project, [oldKid]);

    const next = await generateSigningKey('ES256');
    const rotation = await rotateSigningKey(host.platform.pool, project.record.ref, next, 3600);
    expect(rotation).toEqual({
      ref: project.record.ref,
      current: { kid: next.kid, alg: 'ES256' },
      previous: [{ kid: oldKid, alg: 'ES256', expires_at: expect.any(String) }],
    });
    await waitForKids(project, [oldKid, next.kid]);

    const { token: newToken } = await signUp(project);
    expect(decodeProtectedHeader(newToken).kid).toBe(next.kid);
    expect(await whoami(project, oldToken)).toEqual({ status: 200, body: `authenticated:${userId}` });
    expect((await getUser(project, oldToken)).status).toBe(200);
    const local = await client(project).auth.getClaims(oldToken);
    expect(local.error).toBeNull();
    expect(local.data?.claims.sub).toBe(userId);

    // The grace period ends (as its expiry passing would): the registry change reaches the host.
    await host.platform.pool.query(`UPDATE project_signing_keys SET expires_at = now() - interval '1 second' WHERE kid = $1`, [oldKid]);
    await waitForKids(project, [next.kid]);
    expect(await getUser(project, oldToken)).toEqual({ status: 403, body: unknownKid(oldKid) });
    expect(await whoami(project, oldToken)).toEqual({ status: 401, body: noSuitableKey });
    expect((await whoami(project, newToken)).status).toBe(200);
  });

  it('a short grace period ends on its own, with no reload, even for a token the host has cached', async () => {
    const project = await newProject();
    const { token: oldToken } = await signUp(project);
    const oldKid = decodeProtectedHeader(oldToken).kid as string;
    const next = await generateSigningKey('ES256');
    await rotateSigningKey(host.platform.pool, project.record.ref, next, 2);
    await waitForKids(project, [oldKid, next.kid]);
    const deadline = Date.now() + 30_000;
    let answer = await whoami(project, oldToken);
    while (answer.status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      answer = await whoami(project, oldToken);
    }
    expect(answer).toEqual({ status: 401, body: noSuitableKey });
    expect(await getUser(project, oldToken)).toEqual({ status: 403, body: unknownKid(oldKid) });
    expect(await jwksKids(project)).toEqual([next.kid]);
  });

  it('a default (HS256) project signs with its jwt_secret and serves an empty JWKS; getClaims() then asks /user; a rotation switches it, its HS256 tokens stay valid', async () => {
    const project = await newProject('HS256');
    await waitForKids(project, []);
    const log = requestLog(project);
    const supabase = client(project, log);
    const { token: hs256, userId } = await signUp(project, supabase);
    expect(decodeProtectedHeader(hs256)).toEqual({ alg: 'HS256', typ: 'JWT' });
    log.paths.length = 0;
    expect((await supabase.auth.getClaims()).data?.claims.sub).toBe(userId);
    expect(log.paths).toEqual(['/auth/v1/user']);

    const first = await generateSigningKey('ES256');
    expect((await rotateSigningKey(host.platform.pool, project.record.ref, first, 3600))?.previous).toEqual([]);
    await waitForKids(project, [first.kid]);
    expect(decodeProtectedHeader((await signUp(project)).token).kid).toBe(first.kid);
    expect(await whoami(project, hs256)).toEqual({ status: 200, body: `authenticated:${userId}` });
    expect((await getUser(project, hs256)).status).toBe(200);
  });

  it('rotating a project that does not exist changes nothing', async () => {
    expect(await rotateSigningKey(host.platform.pool, 'no_such_project', await generateSigningKey('ES256'), 60)).toBeNull();
  });
});
