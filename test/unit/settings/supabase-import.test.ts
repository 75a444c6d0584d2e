import { describe, expect, it } from 'vitest';
import { durationSeconds, importSupabaseConfig } from '../../../generator/settings/supabase-import.js';

const SAMPLE = `
project_id = "helpdesk"

[api]
enabled = true
port = 54321
schemas = ["public", "graphql_public", "api"]
extra_search_path = ["public", "extensions"]
max_rows = 500

[auth]
enabled = true
site_url = "https://helpdesk.example"
additional_redirect_urls = ["https://helpdesk.example/**"]
jwt_expiry = 3600
enable_signup = true
enable_anonymous_sign_ins = true

[auth.rate_limit]
token_refresh = 100
sign_in_sign_ups = 20
token_verifications = 40
email_sent = 2

[auth.email]
enable_confirmations = false
double_confirm_changes = true
secure_password_change = true
otp_expiry = 900

[auth.sms]
enable_confirmations = true
max_frequency = "1m"

[auth.sms.test_otp]
4152127777 = "123456"

[auth.sms.twilio]
enabled = true
account_sid = "AC123"
message_service_sid = "MG123"
auth_token = "env(SUPABASE_AUTH_SMS_TWILIO_AUTH_TOKEN)"

[auth.mfa.phone]
enroll_enabled = true
verify_enabled = true

[auth.external.github]
enabled = true
client_id = "gh-client"
secret = "plain-secret-value"
redirect_uri = ""

[auth.external.apple]
enabled = false
client_id = ""
secret = "env(SUPABASE_AUTH_EXTERNAL_APPLE_SECRET)"

[auth.hook.custom_access_token]
enabled = true
uri = "pg-functions://postgres/public/custom_claims"
`;

describe('importSupabaseConfig', () => {
  it("maps [api] and [auth] onto Gantry's keys; secrets only as references; lists what it does not import", () => {
    const imported = importSupabaseConfig(SAMPLE, 'supabase/config.toml');
    expect(Object.fromEntries(imported.settings)).toEqual({
      'api.schemas': 'public,api',
      'api.extra_search_path': 'public,extensions',
      'api.max_rows': 500,
      'auth.site_url': 'https://helpdesk.example',
      'auth.redirect_allow_list': 'https://helpdesk.example/**',
      'auth.disable_signup': false,
      'auth.anonymous_users': true,
      'auth.autoconfirm': true,
      'auth.secure_email_change': true,
      'auth.update_password_require_reauthentication': true,
      'auth.otp_expiry': 900,
      'auth.rate_limit.token_refresh': 100,
      'auth.rate_limit.verify': 40,
      'auth.rate_limit.otp': 20,
      'auth.mfa.phone.enabled': true,
      'auth.external.github.enabled': true,
      'auth.external.github.client_id': 'gh-client',
      'auth.external.github.secret': 'env(SUPABASE_AUTH_EXTERNAL_GITHUB_SECRET)',
      'auth.external.github.redirect_uri': '',
      'auth.hook.custom_access_token.enabled': true,
      'auth.hook.custom_access_token.uri': 'pg-functions://postgres/public/custom_claims',
      'auth.sms.autoconfirm': false,
      'auth.sms.max_frequency': 60,
      'auth.sms.test_otp': '+4152127777=123456',
      'auth.sms.provider': 'twilio',
      'auth.sms.twilio.account_sid': 'AC123',
      'auth.sms.twilio.message_service_sid': 'MG123',
      'auth.sms.twilio.auth_token': 'env(SUPABASE_AUTH_SMS_TWILIO_AUTH_TOKEN)',
    });
    expect(imported.references).toEqual(['SUPABASE_AUTH_EXTERNAL_GITHUB_SECRET']);
    expect(imported.skipped).toEqual([
      'api.enabled: no Gantry setting',
      'api.port: no Gantry setting',
      'auth.enabled: no Gantry setting',
      'auth.jwt_expiry: no Gantry setting',
      'auth.rate_limit.email_sent: no Gantry setting',
      'auth.external.apple.enabled: not enabled',
      'auth.external.apple.client_id: not enabled',
      'auth.external.apple.secret: not enabled',
    ]);
    expect(JSON.stringify(imported)).not.toContain('plain-secret-value');
  });

  it('reads Go durations as whole seconds', () => {
    expect([durationSeconds('5s'), durationSeconds('1m30s'), durationSeconds('2h'), durationSeconds(7), durationSeconds('soon')]).toEqual([5, 90, 7200, 7, null]);
  });

  it('a file that is not TOML is a coded error', () => {
    expect(() => importSupabaseConfig('[auth', 'supabase/config.toml')).toThrow(/^supabase\/config\.toml: not valid TOML: line 1/);
  });
});
