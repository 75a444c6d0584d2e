import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliOk, installation, jsonObject, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { callProject, eventually, OWN_NOTES_SQL, session, uniqueRef, type Answer, type PrintedKeys as Keys } from '../helpers/blackbox-projects.js';

/**
 * One user's journey through two hosts sharing one database, every step on the other
 * host than the one before: whatever auth keeps (users, sessions, refresh-token
 * families, rate-limit counters) lives in the project database, so two hosts answer
 * exactly as one.
 */

// Every CLI run is a fresh Node process that loads the generator: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const PASSWORD = 'correct horse battery staple';

let a: Installation;
let b: Installation;
let hosts: Server[] = [];
let keys: Keys;

/** A JSON request to the project on one host, with the anon key and, when given, a user's access token. */
function call(inst: Installation, method: string, pathAndQuery: string, body?: unknown, bearer?: string): Promise<Answer> {
  return callProject(inst.baseUrl, keys, method, pathAndQuery, { body, bearer });
}

const refresh = (inst: Installation, token: string): Promise<Answer> => call(inst, 'POST', 'auth/v1/token?grant_type=refresh_token', { refresh_token: token });
const signIn = (inst: Installation, email: string): Promise<Answer> => call(inst, 'POST', 'auth/v1/token?grant_type=password', { email, password: PASSWORD });

beforeAll(async () => {
  [a, b] = [await installation(), await installation()];
  // At once, as a deployment starts them (both may find the shared demo project missing).
  hosts = await Promise.all([serve(a), serve(b)]);
  keys = jsonObject(await cliOk(['project', 'create', uniqueRef('bbh'), '--schema', OWN_NOTES_SQL, '--autoconfirm', '--json'], a.env)) as unknown as Keys;
  for (const inst of [a, b]) await eventually(2000, () => call(inst, 'GET', 'rest/v1/notes'), (x) => x.status === 200);
});
afterAll(async () => {
  for (const host of hosts) expect(await host.stop(), host.output()).toBe(0);
  for (const inst of [a, b]) await removeInstallation(inst);
});

describe('two hosts alternating requests of one user', () => {
  it('sign-up, sign-in, RLS data, refresh-token reuse detection and the /token rate limit behave as on one host', async () => {
    const email = 'alternating@example.com';
    const signedUp = session(await call(a, 'POST', 'auth/v1/signup', { email, password: PASSWORD }));
    expect(signedUp.user.email).toBe(email);

    const signedIn = session(await signIn(b, email));
    expect(signedIn.user.id).toBe(signedUp.user.id);

    const inserted = await call(a, 'POST', 'rest/v1/notes', { body: 'mine' }, signedIn.access_token);
    // The service answers writes with the affected rows (return=representation by default).
    expect([inserted.status, inserted.body]).toEqual([201, [{ id: 2, owner: signedUp.user.id, body: 'mine' }]]);
    const read = await call(b, 'GET', 'rest/v1/notes?select=owner,body', undefined, signedIn.access_token);
    expect([read.status, read.body]).toEqual([200, [{ owner: signedUp.user.id, body: 'mine' }]]);
    const anon = await call(a, 'GET', 'rest/v1/notes?select=owner,body');
    expect([anon.status, anon.body]).toEqual([200, []]);

    const rotated = session(await refresh(a, signedIn.refresh_token));
    expect(rotated.refresh_token).not.toBe(signedIn.refresh_token);
    expect(rotated.user.id).toBe(signedUp.user.id);
    const reuse = await refresh(b, signedIn.refresh_token);
    expect([reuse.status, reuse.body]).toEqual([400, { code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' }]);
    const revoked = await refresh(a, rotated.refresh_token);
    expect([revoked.status, revoked.body]).toEqual([400, { code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' }]);
    const me = await call(b, 'GET', 'auth/v1/user', undefined, rotated.access_token);
    expect([me.status, (me.body as { code?: string }).code]).toEqual([403, 'session_not_found']);

    // Every /token request so far counted against one counter in the project database: 4 of them.
    const tokenCallsSoFar = 4;
    const limit = tokenCallsSoFar + 3;
    // disable_signup shows on /settings, so each host is seen to have the new settings before counting on.
    await cliOk(['project', 'config', keys.ref, '--set', `auth.rate_limit.token_refresh=${limit}`, '--set', 'auth.disable_signup=true'], a.env);
    for (const inst of [a, b]) {
      await eventually(2000, () => call(inst, 'GET', 'auth/v1/settings'), (x) => (x.body as { disable_signup?: boolean }).disable_signup === true);
    }
    const answers: Answer[] = [];
    for (let i = 0; i < 5; i += 1) answers.push(await signIn(i % 2 === 0 ? a : b, email));
    expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 429, 429]);
    for (const limited of answers.slice(3)) {
      expect(limited.body).toEqual({ code: 'over_request_rate_limit', message: 'Request rate limit reached' });
      // The window opened with the first /token request; both hosts count down the same one.
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(300);
    }
  });
});
