import { describe, expect, it } from 'vitest';
import { appSettingGucs, formatSetting, mergeAppSettings, parseSetting, resolveSettings, SettingsError, settingLines } from '../../../runtime/platform/settings.js';

describe('api.schemas', () => {
  it('parses a comma-separated, ordered list taken exactly (no trimming, any character but a comma)', () => {
    expect(parseSetting('api.schemas=public')).toEqual({ key: 'api.schemas', value: ['public'] });
    expect(parseSetting('api.schemas=extra,public')).toEqual({ key: 'api.schemas', value: ['extra', 'public'] });
    expect(parseSetting(`api.schemas=public,it's "odd", Sch=ema`)).toEqual({ key: 'api.schemas', value: ['public', `it's "odd"`, ' Sch=ema'] });
  });

  it('refuses an empty list or name, duplicates, and the schemas that are never exposed', () => {
    const cases: [string, string][] = [
      ['', 'api.schemas: expected a comma-separated list of schemas, the default profile first (schema names may contain any character except a comma), got ""'],
      ['public,', 'api.schemas: empty schema name in the list (schema names may contain any character except a comma)'],
      [',public', 'api.schemas: empty schema name in the list (schema names may contain any character except a comma)'],
      ['public,extra,public', 'api.schemas: schema "public" is listed more than once'],
      ['auth', 'api.schemas: schema "auth" can never be exposed (auth, information_schema and pg_* are not)'],
      ['public,pg_catalog', 'api.schemas: schema "pg_catalog" can never be exposed (auth, information_schema and pg_* are not)'],
      ['information_schema', 'api.schemas: schema "information_schema" can never be exposed (auth, information_schema and pg_* are not)'],
    ];
    for (const [raw, message] of cases) expect(() => parseSetting(`api.schemas=${raw}`)).toThrow(new SettingsError(message));
  });

  it('defaults to public and falls back to it for a stored value that is not a valid list', () => {
    expect(resolveSettings({})['api.schemas']).toEqual(['public']);
    expect(resolveSettings({ 'api.schemas': ['extra', 'public'] })['api.schemas']).toEqual(['extra', 'public']);
    for (const stored of ['public,extra', [], ['auth'], ['public', 'public'], ['public', 1], null]) {
      expect(resolveSettings({ 'api.schemas': stored })['api.schemas']).toEqual(['public']);
    }
  });

  it('formats back to the form the CLI takes', () => {
    expect(formatSetting(['public', 'extra'])).toBe('public,extra');
    expect(formatSetting(true)).toBe('true');
    expect(formatSetting(30)).toBe('30');
  });
});

describe('auth redirect and sign-up settings', () => {
  it('parses a site URL (any absolute URL, or nothing) and refuses other text', () => {
    expect(parseSetting('auth.site_url=https://app.example.com')).toEqual({ key: 'auth.site_url', value: 'https://app.example.com' });
    expect(parseSetting('auth.site_url=')).toEqual({ key: 'auth.site_url', value: '' });
    expect(() => parseSetting('auth.site_url=app.example.com')).toThrow(
      new SettingsError('auth.site_url: expected an absolute URL such as https://app.example.com, or nothing, got "app.example.com"'),
    );
  });

  it('parses an allow-list of URLs and globs, keeping commas inside {a,b}, and refuses a pattern that cannot compile', () => {
    expect(parseSetting('auth.redirect_allow_list=https://*.example.com/**,myapp://{login,signup}')).toEqual({
      key: 'auth.redirect_allow_list',
      value: ['https://*.example.com/**', 'myapp://{login,signup}'],
    });
    expect(parseSetting('auth.redirect_allow_list=')).toEqual({ key: 'auth.redirect_allow_list', value: [] });
    expect(() => parseSetting('auth.redirect_allow_list=https://[a-')).toThrow(SettingsError);
    expect(formatSetting(['https://a.example', 'myapp://{login,signup}'])).toBe('https://a.example,myapp://{login,signup}');
  });

  it('defaults to sign-ups open, no site URL and an empty list, and ignores unusable stored values', () => {
    const defaults = resolveSettings({});
    expect([defaults['auth.disable_signup'], defaults['auth.site_url'], defaults['auth.redirect_allow_list']]).toEqual([false, '', []]);
    const bad = resolveSettings({ 'auth.disable_signup': 'yes', 'auth.site_url': 'nope', 'auth.redirect_allow_list': ['{'] });
    expect([bad['auth.disable_signup'], bad['auth.site_url'], bad['auth.redirect_allow_list']]).toEqual([false, '', []]);
    expect(parseSetting('auth.disable_signup=true')).toEqual({ key: 'auth.disable_signup', value: true });
  });
});

describe('auth.signing_alg', () => {
  it('takes HS256, ES256 or RS256, defaults to HS256 (the service document: tokens signed with the jwt_secret), and refuses anything else', () => {
    for (const alg of ['HS256', 'ES256', 'RS256']) expect(parseSetting(`auth.signing_alg=${alg}`)).toEqual({ key: 'auth.signing_alg', value: alg });
    expect(resolveSettings({})['auth.signing_alg']).toBe('HS256');
    expect(resolveSettings({ 'auth.signing_alg': 'none' })['auth.signing_alg']).toBe('HS256');
    for (const raw of ['hs256', 'HS512', 'none', '']) {
      expect(() => parseSetting(`auth.signing_alg=${raw}`)).toThrow(new SettingsError(`auth.signing_alg: expected HS256, ES256 or RS256, got "${raw}"`));
    }
  });
});

describe('auth.secure_email_change', () => {
  it('is on unless set off, as GoTrue MAILER_SECURE_EMAIL_CHANGE_ENABLED', () => {
    expect(resolveSettings({})['auth.secure_email_change']).toBe(true);
    expect(parseSetting('auth.secure_email_change=false')).toEqual({ key: 'auth.secure_email_change', value: false });
    expect(() => parseSetting('auth.secure_email_change=no')).toThrow(new SettingsError('auth.secure_email_change: expected true or false, got "no"'));
  });
});

describe('app.settings', () => {
  it('parses app.settings.NAME=VALUE into one app setting, the value taken exactly', () => {
    expect(parseSetting('app.settings.jwt_secret=a=b, c')).toEqual({ key: 'app.settings', value: { jwt_secret: 'a=b, c' } });
    expect(parseSetting('app.settings.my.nested$1=')).toEqual({ key: 'app.settings', value: { 'my.nested$1': '' } });
  });

  it('refuses names PostgreSQL does not take for a custom setting, and the whole map at once', () => {
    for (const name of ['', 'no-dash', '1st', 'a..b', 'a.', "quo'te"]) {
      expect(() => parseSetting(`app.settings.${name}=x`)).toThrow(
        new SettingsError(`app.settings.${name}: expected a name of letters, digits, _ and $ (dot-separated words not starting with a digit)`),
      );
    }
    expect(() => parseSetting('app.settings={}')).toThrow(new SettingsError('app.settings: set each one as app.settings.NAME=VALUE'));
    expect(() => parseSetting('app.other=1')).toThrow(/unknown setting "app.other" \(known: .*app\.settings\.NAME/);
  });

  it('merges assignments in order, an empty value removing the name, sorted by name', () => {
    expect(mergeAppSettings({ b: '1', a: '2' }, [{ c: '3' }, { a: '' }, { b: 'x' }, { z: '' }])).toEqual({ b: 'x', c: '3' });
    expect(Object.keys(mergeAppSettings({ b: '1' }, [{ a: '2' }]))).toEqual(['a', 'b']);
  });

  it('becomes the GUCs of a request and one CLI line each; unusable stored values fall back to none', () => {
    expect(appSettingGucs({ tenant: 'acme', jwt_secret: 's' })).toEqual([['app.settings.jwt_secret', 's'], ['app.settings.tenant', 'acme']]);
    const settings = resolveSettings({ 'app.settings': { tenant: 'acme', jwt_secret: 's' } });
    expect(settingLines(settings).filter((line) => line.startsWith('app.'))).toEqual(['app.settings.jwt_secret=s', 'app.settings.tenant=acme']);
    expect(settingLines(settings)).toContain('api.schemas=public');
    expect(resolveSettings({ 'app.settings': { 'bad-name': 'x' } })['app.settings']).toEqual({});
    expect(resolveSettings({ 'app.settings': { ok: 1 } })['app.settings']).toEqual({});
    expect(resolveSettings({})['app.settings']).toEqual({});
  });
});

describe('auth.passkey.enabled and auth.webauthn.*', () => {
  it('are off, empty and empty by default: the relying party then follows the site URL', () => {
    const settings = resolveSettings({});
    expect([settings['auth.passkey.enabled'], settings['auth.webauthn.rp_id'], settings['auth.webauthn.rp_origins']]).toEqual([false, '', []]);
  });

  it('take a lower-case domain and comma-separated origins, and refuse what a browser would not match', () => {
    expect(parseSetting('auth.webauthn.rp_id=example.com')).toEqual({ key: 'auth.webauthn.rp_id', value: 'example.com' });
    expect(parseSetting('auth.webauthn.rp_origins=https://app.example.com, http://localhost:5173')).toEqual({
      key: 'auth.webauthn.rp_origins',
      value: ['https://app.example.com', 'http://localhost:5173'],
    });
    expect(parseSetting('auth.webauthn.rp_origins=')).toEqual({ key: 'auth.webauthn.rp_origins', value: [] });
    for (const raw of ['https://example.com', 'Example.com', 'example.com:443', '-example.com']) {
      expect(() => parseSetting(`auth.webauthn.rp_id=${raw}`)).toThrow(
        new SettingsError(`auth.webauthn.rp_id: expected a domain such as example.com (lower case, no scheme or port), or nothing, got "${raw}"`),
      );
    }
    for (const raw of ['https://app.example.com/', 'app.example.com', 'ftp://example.com', 'https://app.example.com/login']) {
      expect(() => parseSetting(`auth.webauthn.rp_origins=${raw}`)).toThrow(
        new SettingsError(`auth.webauthn.rp_origins: expected origins such as https://app.example.com (scheme, host and port only), got "${raw}"`),
      );
    }
    expect(resolveSettings({ 'auth.webauthn.rp_origins': ['https://x.example/path'] })['auth.webauthn.rp_origins']).toEqual([]);
  });
});
