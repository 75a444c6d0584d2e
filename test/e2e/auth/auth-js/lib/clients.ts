import { GoTrueAdminApi } from '@supabase/auth-js';
import { afterAll } from 'vitest';
import { createTestProject, startTestHost } from '../../../../helpers/platform.js';

/**
 * In place of auth-js's test/lib/clients.ts (the Supabase CLI's auth server on :54321):
 * a Gantry host serving one project, configured as auth-js's test/supabase/config.toml
 * configures passkeys and WebAuthn factors ([auth.passkey], [auth.mfa.web_authn], [auth.webauthn]), the OAuth 2.1 server
 * ([auth.oauth_server]) and with sign-ups confirmed at once.
 */
const host = await startTestHost();
afterAll(() => host.close());

const project = await createTestProject(host.platform, { host: host.host, autoconfirm: true });
await host.platform.setSettings(project.record.ref, {
  'auth.passkey.enabled': true,
  'auth.mfa.webauthn.enabled': true,
  'auth.webauthn.rp_id': 'localhost',
  'auth.webauthn.rp_origins': ['http://localhost:5173'],
  'auth.oauth_server.enabled': true,
  'auth.oauth_server.authorization_path': '/oauth/consent',
  'auth.oauth_server.allow_dynamic_registration': true,
});
await host.host.directory.reload(project.record.ref);

export const GOTRUE_URL_SIGNUP_ENABLED_AUTO_CONFIRM_ON = `${project.url}/auth/v1`;
export const SUPABASE_PUBLISHABLE_KEY = project.keys.anon_key;
export const SUPABASE_SECRET_KEY = project.keys.service_key;

export const serviceRoleApiClient = new GoTrueAdminApi({
  url: GOTRUE_URL_SIGNUP_ENABLED_AUTO_CONFIRM_ON,
  headers: {
    apikey: SUPABASE_SECRET_KEY,
    Authorization: `Bearer ${SUPABASE_SECRET_KEY}`,
  },
});
