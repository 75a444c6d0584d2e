import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, runCli, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';

/** Rate limits set with `gantry project config` reach a running host without a restart. */

let host: TestHost;
let project: TestProject;

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host });
});
afterAll(() => host?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the host did not pick up the setting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function verify(): Promise<Response> {
  return fetch(`${project.url}/auth/v1/verify?type=signup&token=x`, { headers: { ...V, apikey: project.keys.anon_key } });
}

describe('project config --set auth.rate_limit.*', () => {
  it('sets a limit that a running host applies: 429 with Retry-After once it is used up', async () => {
    const set = await runCli(['project', 'config', project.record.ref, '--set', 'auth.rate_limit.verify=2', '--set', 'auth.rate_limit.otp=4', '--json'], host.env);
    expect([set.code, set.stderr]).toEqual([0, '']);
    // Every setting is printed; those of other features are their tests' concern.
    expect(JSON.parse(set.stdout)).toMatchObject({
      ref: project.record.ref,
      settings: {
        'auth.rate_limit.token_refresh': 150,
        'auth.rate_limit.verify': 2,
        'auth.rate_limit.otp': 4,
        'auth.rate_limit.anonymous_users': 30,
        'auth.rate_limit.passkey': 30,
      },
    });
    await waitFor(() => host.host.directory.get(project.record.ref)?.ctx.settings['auth.rate_limit.verify'] === 2);

    expect((await verify()).status).toBe(403);
    expect((await verify()).status).toBe(403);
    const limited = await verify();
    expect([limited.status, await limited.json()]).toEqual([429, { code: 'over_request_rate_limit', message: 'Request rate limit reached' }]);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);

    const raised = await runCli(['project', 'config', project.record.ref, '--set', 'auth.rate_limit.verify=10'], host.env);
    expect(raised.code).toBe(0);
    expect(raised.stdout).toContain('auth.rate_limit.verify=10\n');
    await waitFor(() => host.host.directory.get(project.record.ref)?.ctx.settings['auth.rate_limit.verify'] === 10);
    expect((await verify()).status).toBe(403);
  });

  it('refuses an invalid value with a clear error and exit code 1, changing nothing', async () => {
    const bad = await runCli(['project', 'config', project.record.ref, '--set', 'auth.rate_limit.token_refresh=0'], host.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('gantry: auth.rate_limit.token_refresh: expected a whole number of requests per 5 minutes from 1 to 1000000, got "0"\n');
    const json = await runCli(['project', 'config', project.record.ref, '--set', 'auth.rate_limit.otp=lots', '--json'], host.env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'invalid_setting', message: 'auth.rate_limit.otp: expected a whole number of requests per 5 minutes from 1 to 1000000, got "lots"' },
    });
    const unknown = await runCli(['project', 'config', project.record.ref, '--set', 'auth.rate_limit.signup=5'], host.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^gantry: unknown setting "auth\.rate_limit\.signup" \(known: .*auth\.rate_limit\.anonymous_users, auth\.rate_limit\.otp, auth\.rate_limit\.passkey, auth\.rate_limit\.sms_sent, auth\.rate_limit\.token_refresh, auth\.rate_limit\.verify, /,
    );
    expect((await host.platform.getProject(project.record.ref))?.settings['auth.rate_limit.token_refresh']).toBe(150);
  });
});

describe('project config --set auth.site_url, auth.redirect_allow_list, auth.disable_signup', () => {
  it('reach a running host: /settings tells them, sign-ups are refused, and the setting can be undone', async () => {
    const ref = project.record.ref;
    const set = await runCli(
      ['project', 'config', ref, '--set', 'auth.disable_signup=true', '--set', 'auth.site_url=https://app.example.com', '--set', 'auth.redirect_allow_list=https://*.example.com/**,myapp://cb'],
      host.env,
    );
    expect([set.code, set.stderr]).toEqual([0, '']);
    expect(set.stdout).toContain('auth.redirect_allow_list=https://*.example.com/**,myapp://cb\n');
    await waitFor(() => host.host.directory.get(ref)?.ctx.settings['auth.disable_signup'] === true);
    const ctx = host.host.directory.get(ref)?.ctx;
    expect([ctx?.settings['auth.site_url'], ctx?.settings['auth.redirect_allow_list']]).toEqual(['https://app.example.com', ['https://*.example.com/**', 'myapp://cb']]);

    const headers = { ...V, apikey: project.keys.anon_key, 'content-type': 'application/json' };
    const settings = await fetch(`${project.url}/auth/v1/settings`, { headers });
    expect(((await settings.json()) as { disable_signup: boolean }).disable_signup).toBe(true);
    const signup = await fetch(`${project.url}/auth/v1/signup`, { method: 'POST', headers, body: JSON.stringify({ email: 'x@example.com', password: 'secret1' }) });
    expect([signup.status, await signup.json()]).toEqual([422, { code: 'signup_disabled', message: 'Signups not allowed for this instance' }]);

    const bad = await runCli(['project', 'config', ref, '--set', 'auth.redirect_allow_list=https://{a,b'], host.env);
    expect([bad.code, bad.stderr]).toEqual([1, 'gantry: auth.redirect_allow_list: redirect pattern "https://{a,b": unclosed { at 8 in "https://{a,b"\n']);

    const reopened = await runCli(['project', 'config', ref, '--set', 'auth.disable_signup=false'], host.env);
    expect(reopened.code).toBe(0);
    await waitFor(() => host.host.directory.get(ref)?.ctx.settings['auth.disable_signup'] === false);
    const again = await fetch(`${project.url}/auth/v1/signup`, { method: 'POST', headers, body: JSON.stringify({ email: 'x@example.com', password: 'secret1' }) });
    expect(again.status).toBe(200);
  });
});
