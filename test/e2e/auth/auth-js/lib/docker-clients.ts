import { GoTrueClient } from '@supabase/auth-js';
import { afterAll } from 'vitest';
import { sealSmsSecret } from '../../../../../runtime/settings/sms-settings.js';
import { FakeSmsProvider } from '../../../../helpers/fake-sms.js';
import { createTestProject, startTestHost, type TestProject } from '../../../../helpers/platform.js';

/**
 * In place of auth-js's test/docker-tests/clients.ts (GoTrue instances of its
 * infra/docker-compose.yml): a Gantry host serving one project per instance the phone tests
 * use, configured as the compose file configures it. `phoneClient`: sign-ups unconfirmed, phone
 * on with Twilio whose credentials Twilio refuses (the compose file's come from CI secrets this
 * run does not have), played by a local server; `autoConfirmClient`: e-mail and SMS
 * autoconfirm on. auth-js's MemoryStorage and client options are kept.
 */
const host = await startTestHost({ AUTH_ALLOW_PRIVATE_PROVIDER_URLS: 'true' });
const twilio = await FakeSmsProvider.start({ twilioAuthToken: 'the-real-token' });
afterAll(async () => {
  await host.close();
  await twilio.close();
});

async function phoneProject(autoconfirm: boolean): Promise<TestProject> {
  const project = await createTestProject(host.platform, { host: host.host, autoconfirm });
  await host.platform.setSettings(project.record.ref, {
    'auth.sms.provider': 'twilio',
    'auth.sms.autoconfirm': autoconfirm,
    'auth.sms.twilio.account_sid': 'ACdocker',
    'auth.sms.twilio.auth_token': sealSmsSecret(project.record.jwtSecret, 'auth.sms.twilio.auth_token', 'not-the-token'),
    'auth.sms.twilio.message_service_sid': 'MGdocker',
    'auth.sms.twilio.base_url': twilio.url,
  });
  await host.host.directory.reload(project.record.ref);
  return project;
}

const [off, on] = await Promise.all([phoneProject(false), phoneProject(true)]);

class MemoryStorage {
  private storage: { [name: string]: string } = {};

  async setItem(name: string, value: string): Promise<void> {
    this.storage[name] = value;
  }

  async getItem(name: string): Promise<string | null> {
    return this.storage[name] || null;
  }

  async removeItem(name: string): Promise<void> {
    delete this.storage[name];
  }
}

function client(project: TestProject): GoTrueClient {
  return new GoTrueClient({
    url: `${project.url}/auth/v1`,
    headers: { apikey: project.keys.anon_key },
    autoRefreshToken: false,
    persistSession: true,
    storage: new MemoryStorage(),
  });
}

export const phoneClient = client(off);
export const autoConfirmClient = client(on);
