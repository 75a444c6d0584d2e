import { describe, expect, it } from 'vitest';
import { attemptDecisionFrom, customClaimsFrom, hookReportedError } from '../../../runtime/auth/hooks/hook-output.js';
import { checkHookUri, openHookSecrets, parseHookSetting, resolveHooks, sealHookSecrets } from '../../../runtime/settings/hook-settings.js';
import { hookFunctionName } from '../../../runtime/auth/hooks/pg-function-hook.js';

const CLAIMS = {
  aud: 'authenticated', exp: 1_800_000_000, iat: 1_799_996_400, sub: 'u1', email: '', phone: '', role: 'authenticated',
  aal: 'aal1', session_id: 's1', is_anonymous: false,
};

describe('custom access token output', () => {
  it('takes claims that fit GoTrue\'s schema as they are', () => {
    expect(customClaimsFrom({ claims: { ...CLAIMS, user_role: 'admin' } })).toEqual({ ...CLAIMS, user_role: 'admin' });
  });

  it('answers missing and mistyped claims with GoTrue\'s wording', () => {
    const { aud: _aud, is_anonymous: _anon, ...rest } = CLAIMS;
    expect(() => customClaimsFrom({ claims: { ...rest, iat: 1.5, amr: [1], app_metadata: [] } })).toThrow(
      'output claims do not conform to the expected schema: \n- (root): aud is required\n- (root): is_anonymous is required\n' +
        '- iat: Invalid type. Expected: integer, given: number\n- app_metadata: Invalid type. Expected: object, given: array\n' +
        '- amr.0: Must validate at least one schema (anyOf)\n',
    );
    expect(() => customClaimsFrom({ claims: { ...CLAIMS, aud: 7 } })).toThrow('- aud: Invalid type. Expected: [string,array], given: integer\n');
    expect(() => customClaimsFrom({})).toThrow('output claims field is missing');
    expect(() => customClaimsFrom({ claims: 'x' })).toThrow('Error unmarshaling JSON output.');
  });
});

describe('hook errors and decisions', () => {
  it('reads {error: {http_code, message}} as GoTrue: 500 without a code, nothing without a message', () => {
    expect(hookReportedError({ error: { http_code: 429, message: 'slow down' } })).toMatchObject({ status: 429, code: 'unknown', message: 'slow down' });
    expect(hookReportedError({ error: { message: 'bad' } })).toMatchObject({ status: 500, code: 'unexpected_failure', message: 'bad' });
    expect(hookReportedError({ error: { http_code: 400 } })).toBeNull();
    expect(hookReportedError({ claims: {} })).toBeNull();
  });

  it('reads a verification attempt decision', () => {
    expect(attemptDecisionFrom({ decision: 'reject', message: 'no', should_logout_user: true })).toEqual({ reject: true, message: 'no', shouldLogoutUser: true });
    expect(attemptDecisionFrom({ decision: 'continue' })).toEqual({ reject: false, message: '', shouldLogoutUser: false });
    expect(attemptDecisionFrom(null)).toEqual({ reject: false, message: '', shouldLogoutUser: false });
  });
});

describe('hook settings', () => {
  it('checks URIs as GoTrue does', () => {
    expect(() => checkHookUri('pg-functions://postgres/public/my_hook')).not.toThrow();
    expect(() => checkHookUri('https://hooks.example.com/mail')).not.toThrow();
    expect(() => checkHookUri('http://localhost:9000/mail')).not.toThrow();
    expect(() => checkHookUri('http://hooks.example.com/mail')).toThrow('only localhost, 127.0.0.1, and ::1 are supported with http');
    expect(() => checkHookUri('pg-functions://postgres/public')).toThrow('URI path does not contain enough parts');
    expect(() => checkHookUri('pg-functions://postgres/public/bad-name')).toThrow('invalid function name: bad-name');
    expect(() => checkHookUri('ftp://example.com/x')).toThrow('only postgres hooks and HTTPS functions are supported at the moment');
    expect(hookFunctionName('pg-functions://postgres/public/my_hook')).toBe('"public"."my_hook"');
  });

  it('parses values, seals secrets bound to their key, and resolves a hook without a usable URI as off', () => {
    expect(parseHookSetting('auth.hook.send_email.enabled', 'true')).toBe(true);
    expect(() => parseHookSetting('auth.hook.send_email.enabled', 'yes')).toThrow('auth.hook.send_email.enabled: expected true or false, got "yes"');
    const secrets = `v1,whsec_${'a'.repeat(40)}|v1,whsec_${'b'.repeat(40)}`;
    const sealed = sealHookSecrets('jwt-secret', 'auth.hook.send_email.secrets', secrets);
    expect(sealed).not.toContain('whsec');
    expect(openHookSecrets('jwt-secret', 'send_email', sealed)).toEqual([`v1,whsec_${'a'.repeat(40)}`, `v1,whsec_${'b'.repeat(40)}`]);
    expect(() => openHookSecrets('jwt-secret', 'send_sms', sealed)).toThrow();
    const hooks = resolveHooks({ 'auth.hook.send_email.enabled': true, 'auth.hook.custom_access_token.enabled': true, 'auth.hook.custom_access_token.uri': 'pg-functions://postgres/public/h' });
    expect(hooks.send_email).toEqual({ enabled: false, uri: '', secrets_sealed: '' });
    expect(hooks.custom_access_token).toEqual({ enabled: true, uri: 'pg-functions://postgres/public/h', secrets_sealed: '' });
  });
});
