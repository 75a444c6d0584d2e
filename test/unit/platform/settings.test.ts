import { describe, expect, it } from 'vitest';
import { formatSetting, parseSetting, resolveSettings, SettingsError } from '../../../runtime/platform/settings.js';

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
