import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, installation, jsonObject, serve, shutDown, type Installation, type Server } from '../helpers/serve-process.js';
import { docsExample } from '../helpers/docs-examples.js';
import { FakeSmsProvider } from '../helpers/fake-sms.js';
import { createProject, eventually, request, SHOP_SQL, type PrintedKeys as Keys } from '../helpers/blackbox-projects.js';

/** `project config --set auth.sms.*` as its own process beside a running `gantry serve` that texts through a local fake Twilio. */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let inst: Installation;
let server: Server;
let keys: Keys;
let sms: FakeSmsProvider;

beforeAll(async () => {
  sms = await FakeSmsProvider.start();
  server = await serve(await installation({ env: { AUTH_ALLOW_PRIVATE_PROVIDER_URLS: 'true' } }));
  inst = server.inst;
  keys = await createProject(inst, ['--schema', SHOP_SQL]);
});
afterAll(async () => {
  await shutDown(server);
  await sms?.close();
});

describe('configuring the SMS provider', () => {
  it("runs docs/auth.md's example as the page shows it, keeping the token sealed", async () => {
    const example = docsExample('docs/auth.md', 'auth.sms.provider=twilio');
    const words = example.replace(/\\\n/g, ' ').trim().split(/\s+/);
    expect(words.slice(0, 4)).toEqual(['npx', 'gantry', 'project', 'config']);
    const args = words.slice(2).map((word) => (word === 'myapp' ? keys.ref : word.replace('$TWILIO_AUTH_TOKEN', 'twilio-secret-token')));
    const run = await cli([...args, '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('twilio-secret-token');
    expect(jsonObject(run)).toMatchObject({
      settings: {
        'auth.sms.provider': 'twilio',
        'auth.sms.twilio.account_sid': 'AC0123456789abcdef0123456789abcdef',
        'auth.sms.twilio.auth_token': '(sealed)',
        'auth.sms.twilio.message_service_sid': 'MG0123456789abcdef0123456789abcdef',
        'auth.sms.twilio.base_url': 'https://api.twilio.com',
      },
    });
    const text = await cli(['project', 'config', keys.ref], inst.env);
    expect(text.stdout).toContain('auth.sms.twilio.auth_token=(sealed)\n');
    expect(text.stdout).not.toContain('twilio-secret-token');
  });

  it('texts a sign-up code through the configured base URL once the running server has the settings', async () => {
    const run = await cli(['project', 'config', keys.ref, '--set', `auth.sms.twilio.base_url=${sms.url}`, '--set', 'auth.sms.template=Gantry code: {{ .Code }}', '--json'], inst.env);
    expect(run.code).toBe(0);
    const settings = await eventually(5000, () => request(`${keys.url}/auth/v1/settings`, { headers: { apikey: keys.anon_key } }), (a) =>
      (a.body as { sms_provider?: string }).sms_provider === 'twilio',
    );
    expect(settings.body).toMatchObject({ external: { phone: true }, sms_provider: 'twilio', phone_autoconfirm: false });

    const phone = '15555550123';
    const signUp = await eventually(30_000, () =>
      request(`${keys.url}/auth/v1/signup`, { method: 'POST', headers: { apikey: keys.anon_key, 'content-type': 'application/json' }, body: JSON.stringify({ phone: `+${phone}`, password: 'secret1' }) }),
      (a) => a.status === 200 && sms.to(phone).length > 0,
    );
    expect(signUp.status).toBe(200);
    expect(sms.to(phone)[0]).toMatchObject({ basic: 'AC0123456789abcdef0123456789abcdef:twilio-secret-token', form: { From: 'MG0123456789abcdef0123456789abcdef', To: `+${phone}` } });
    expect(sms.to(phone)[0]?.form.Body).toMatch(/^Gantry code: \d{6}$/);
    const verified = await request(`${keys.url}/auth/v1/verify`, {
      method: 'POST',
      headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'sms', phone, token: sms.lastCode(phone) }),
    });
    expect(verified.status).toBe(200);
    expect((verified.body as { user: { phone: string } }).user.phone).toBe(phone);
  });

  it('refuses a provider it does not have and a malformed test OTP, exit 1', async () => {
    const unknown = await cli(['project', 'config', keys.ref, '--set', 'auth.sms.provider=textlocal', '--json'], inst.env);
    expect(unknown.code).toBe(1);
    expect(jsonObject(unknown)).toMatchObject({ error: { code: 'invalid_setting', message: 'auth.sms.provider: expected twilio or vonage, or nothing for none, got "textlocal"' } });
    const otp = await cli(['project', 'config', keys.ref, '--set', 'auth.sms.test_otp=+15555550100=12', '--json'], inst.env);
    expect(otp.code).toBe(1);
    expect(jsonObject(otp)).toMatchObject({ error: { code: 'invalid_setting', message: 'auth.sms.test_otp: test OTP "+15555550100=12": expected a code of 4 to 10 digits after "="' } });
  });
});
