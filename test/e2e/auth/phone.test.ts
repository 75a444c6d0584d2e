import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sealHookSecrets } from '../../../runtime/settings/hook-settings.js';
import { sealSmsSecret } from '../../../runtime/settings/sms-settings.js';
import { FakeSmsProvider } from '../../helpers/fake-sms.js';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';

/**
 * Phone sign-in through supabase-js against a served project: Twilio's API played by a local
 * server that keeps the texts (sign-up, OTP sign-in, phone change, a phone MFA factor), and a
 * project whose texts go to the send-SMS hook, signed with Standard Webhooks.
 */

let host: TestHost;
let twilio: TestProject;
let hooked: TestProject;
let sms: FakeSmsProvider;
let hookServer: http.Server;
const hookCalls: { headers: http.IncomingHttpHeaders; body: string }[] = [];
const hookSecret = `v1,whsec_${randomBytes(32).toString('base64')}`;

function client(project: TestProject): SupabaseClient {
  return createClient(project.url, project.keys.anon_key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

let counter = 0;
function newPhone(): string {
  counter += 1;
  return `1444${String(process.pid % 1000).padStart(3, '0')}${String(counter).padStart(4, '0')}`;
}

beforeAll(async () => {
  host = await startTestHost({ AUTH_ALLOW_PRIVATE_PROVIDER_URLS: 'true' });
  sms = await FakeSmsProvider.start();
  hookServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hookCalls.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/send-sms`;

  twilio = await createTestProject(host.platform, { host: host.host });
  await host.platform.setSettings(twilio.record.ref, {
    'auth.sms.provider': 'twilio',
    'auth.sms.twilio.account_sid': 'ACe2e',
    'auth.sms.twilio.auth_token': sealSmsSecret(twilio.record.jwtSecret, 'auth.sms.twilio.auth_token', 'e2e-token'),
    'auth.sms.twilio.message_service_sid': 'MGe2e',
    'auth.sms.twilio.base_url': sms.url,
    'auth.mfa.phone.enabled': true,
  });
  await host.host.directory.reload(twilio.record.ref);

  hooked = await createTestProject(host.platform, { host: host.host });
  await host.platform.setSettings(hooked.record.ref, {
    'auth.hook.send_sms.enabled': true,
    'auth.hook.send_sms.uri': hookUrl,
    'auth.hook.send_sms.secrets': sealHookSecrets(hooked.record.jwtSecret, 'auth.hook.send_sms.secrets', hookSecret),
  });
  await host.host.directory.reload(hooked.record.ref);
});
afterAll(async () => {
  await new Promise((resolve) => hookServer?.close(resolve));
  await sms?.close();
  await host?.close();
});

describe('phone sign-in through supabase-js and Twilio', () => {
  it('signs up with a phone and password, verifies the texted code, then signs in with the password', async () => {
    const phone = newPhone();
    const signUp = await client(twilio).auth.signUp({ phone: `+${phone}`, password: 'secret-pw-1', options: { data: { plan: 'free' } } });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user).toMatchObject({ phone, user_metadata: { plan: 'free' } });
    expect(sms.to(phone)[0]).toMatchObject({ basic: 'ACe2e:e2e-token', form: { To: `+${phone}`, From: 'MGe2e' } });

    const refused = await client(twilio).auth.signInWithPassword({ phone: `+${phone}`, password: 'secret-pw-1' });
    expect([refused.error?.status, refused.error?.code]).toEqual([400, 'phone_not_confirmed']);

    const verified = await client(twilio).auth.verifyOtp({ phone: `+${phone}`, token: sms.lastCode(phone), type: 'sms' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ phone, phone_confirmed_at: expect.any(String) });

    const signedIn = await client(twilio).auth.signInWithPassword({ phone: `+${phone}`, password: 'secret-pw-1' });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.phone).toBe(phone);
  });

  it('signs in with a texted code (signInWithOtp), changes the number with updateUser and verifyOtp phone_change', async () => {
    const phone = newPhone();
    const asked = await client(twilio).auth.signInWithOtp({ phone: `+${phone}` });
    expect(asked.error).toBeNull();
    const auth = client(twilio).auth;
    const verified = await auth.verifyOtp({ phone: `+${phone}`, token: sms.lastCode(phone), type: 'sms' });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.phone).toBe(phone);

    const next = newPhone();
    const updated = await auth.updateUser({ phone: `+${next}` });
    expect(updated.error).toBeNull();
    expect(updated.data.user).toMatchObject({ phone, new_phone: next });
    const moved = await auth.verifyOtp({ phone: `+${next}`, token: sms.lastCode(next), type: 'phone_change' });
    expect(moved.error).toBeNull();
    expect(moved.data.user?.phone).toBe(next);
    const current = await auth.getUser();
    expect(current.data.user).toMatchObject({ phone: next, phone_confirmed_at: expect.any(String) });
  });

  it('enrols a phone MFA factor and reaches aal2 with a texted code (challengeAndVerify)', async () => {
    const phone = newPhone();
    const auth = client(twilio).auth;
    await auth.signInWithOtp({ phone: `+${phone}` });
    expect((await auth.verifyOtp({ phone: `+${phone}`, token: sms.lastCode(phone), type: 'sms' })).error).toBeNull();
    const factorPhone = newPhone();
    const enrolled = await auth.mfa.enroll({ factorType: 'phone', phone: `+${factorPhone}`, friendlyName: 'backup phone' });
    expect(enrolled.error).toBeNull();
    expect(enrolled.data).toMatchObject({ type: 'phone', friendly_name: 'backup phone', phone: `+${factorPhone}` });
    const challenge = await auth.mfa.challenge({ factorId: enrolled.data!.id });
    expect(challenge.error).toBeNull();
    const verified = await auth.mfa.verify({ factorId: enrolled.data!.id, challengeId: challenge.data!.id, code: sms.lastCode(factorPhone) });
    expect(verified.error).toBeNull();
    const level = await auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    const factors = await auth.mfa.listFactors();
    expect(factors.data?.phone).toEqual([expect.objectContaining({ id: enrolled.data!.id, factor_type: 'phone', status: 'verified', phone: factorPhone })]);
  });
});

describe('phone sign-in through the send-SMS hook', () => {
  it('posts the code to the hook, signed with Standard Webhooks, and the code signs in', async () => {
    const phone = newPhone();
    hookCalls.length = 0;
    const asked = await client(hooked).auth.signInWithOtp({ phone: `+${phone}` });
    expect(asked.error).toBeNull();
    expect(hookCalls).toHaveLength(1);
    const { headers, body } = hookCalls[0]!;
    const key = Buffer.from(hookSecret.slice('v1,whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
    const payload = JSON.parse(body) as { metadata: Record<string, unknown>; user: Record<string, unknown>; sms: { otp: string; phone: string } };
    expect(payload.metadata).toMatchObject({ name: 'send-sms' });
    expect(payload.user).toMatchObject({ phone });
    expect(payload.sms).toEqual({ otp: expect.stringMatching(/^\d{6}$/), phone });
    expect(sms.to(phone)).toEqual([]);

    const verified = await client(hooked).auth.verifyOtp({ phone: `+${phone}`, token: payload.sms.otp, type: 'sms' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone).toBe(phone);
    const settings = (await (await fetch(`${hooked.url}/auth/v1/settings`, { headers: { apikey: hooked.keys.anon_key } })).json()) as { external: { phone: boolean }; sms_provider: string };
    expect([settings.external.phone, settings.sms_provider]).toEqual([true, '']);
  });
});
