import { describe, expect, it } from 'vitest';
import { sealProviderSecret } from '../../../runtime/settings/provider-settings.js';
import { sealHookSecrets } from '../../../runtime/settings/hook-settings.js';
import { parseConfigFile } from '../../../runtime/config-file.js';
import { declaredSchemas, declaredSettings, envReference, planSettings, requireResolved } from '../../../generator/settings/declared.js';

const JWT = 'a-project-jwt-secret-of-enough-length-0123456789';

function declaration(body: string) {
  return parseConfigFile(`[projects.helpdesk.settings]\n${body}`, 'gantry.toml').projects[0]!;
}

function thrown(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('expected an error');
}

describe('declared settings', () => {
  it('reads env(NAME) references only in that exact form', () => {
    expect(envReference('env(GITHUB_SECRET)')).toBe('GITHUB_SECRET');
    expect(envReference(' env(X_1) ')).toBe('X_1');
    expect(envReference('env(1X)')).toBeNull();
    expect(envReference('prefix env(X)')).toBeNull();
    expect(envReference(true)).toBeNull();
  });

  it('turns values into the CLI text and parses them as project config --set does', () => {
    const settings = declaredSettings(
      declaration('"auth.autoconfirm" = true\n"auth.otp_expiry" = 600\n"api.schemas" = ["public", "extra"]\n"app.settings.tier" = "gold"'),
      {},
      'gantry.toml',
    );
    expect(settings.map((s) => [s.key, s.text, s.assignment])).toEqual([
      ['auth.autoconfirm', 'true', { key: 'auth.autoconfirm', value: true }],
      ['auth.otp_expiry', '600', { key: 'auth.otp_expiry', value: 600 }],
      ['api.schemas', 'public,extra', { key: 'api.schemas', value: ['public', 'extra'] }],
      ['app.settings.tier', 'gold', { key: 'app.settings', value: { tier: 'gold' } }],
    ]);
  });

  it('refuses a secret given as a value, with the reference line to write instead', () => {
    const error = thrown(() => declaredSettings(declaration('"auth.external.github.secret" = "s3cr3t"'), {}, '/repo/gantry.toml'));
    expect(error.code).toBe('secret_in_config_file');
    expect(error.message).toContain('"auth.external.github.secret" = "env(GITHUB_SECRET)"');
    expect(error.message).not.toContain('s3cr3t');
    expect(thrown(() => declaredSettings(declaration('"auth.hook.send_sms.secrets" = "v1,whsec_x"'), {}, 'f')).code).toBe('secret_in_config_file');
    expect(thrown(() => declaredSettings(declaration('"auth.sms.twilio.auth_token" = "tok"'), {}, 'f')).code).toBe('secret_in_config_file');
  });

  it('resolves references from the environment; applying names the key and the unset variable', () => {
    const decl = declaration('"auth.site_url" = "env(SITE)"\n"auth.external.github.secret" = "env(GITHUB_SECRET)"');
    const resolved = declaredSettings(decl, { SITE: 'https://helpdesk.example', GITHUB_SECRET: 'gh' }, 'f');
    expect(resolved.map((s) => [s.key, s.reference, s.secret, s.text])).toEqual([
      ['auth.site_url', 'SITE', false, 'https://helpdesk.example'],
      ['auth.external.github.secret', 'GITHUB_SECRET', true, 'gh'],
    ]);
    const unresolved = declaredSettings(decl, { SITE: 'https://helpdesk.example' }, 'f');
    const error = thrown(() => requireResolved(unresolved, 'helpdesk'));
    expect(error).toEqual({
      code: 'setting_env_unset',
      message: 'project "helpdesk": gantry.toml sets auth.external.github.secret = env(GITHUB_SECRET), and that variable is not set in the environment',
    });
  });

  it('an invalid value is a coded error naming the table', () => {
    const error = thrown(() => declaredSettings(declaration('"auth.otp_expiry" = 0'), {}, 'gantry.toml'));
    expect(error.code).toBe('invalid_setting');
    expect(error.message).toMatch(/^gantry\.toml, \[projects\.helpdesk\.settings\]: auth\.otp_expiry: expected a whole number of seconds/);
  });
});

describe('planSettings', () => {
  const plan = (body: string, stored: Record<string, unknown>, env: Record<string, string> = {}) =>
    planSettings(declaredSettings(declaration(body), env, 'f'), stored, JWT);

  it('assigns only what the registry does not hold as declared', () => {
    const result = plan('"auth.autoconfirm" = true\n"auth.site_url" = "https://a.example"\n"api.schemas" = "public"', {
      'auth.autoconfirm': false,
      'auth.site_url': 'https://a.example',
      'api.schemas': ['public'],
    });
    expect(result.changes).toEqual([{ key: 'auth.autoconfirm', file: 'true', database: 'false' }]);
    expect(result.assignments).toEqual([{ key: 'auth.autoconfirm', value: true }]);
  });

  it('an unset key differs, even at its default: applying writes it once', () => {
    expect(plan('"auth.manual_linking" = false', {}).changes).toEqual([{ key: 'auth.manual_linking', file: 'false', database: '(not set)' }]);
  });

  it('compares an app setting by its name', () => {
    expect(plan('"app.settings.tier" = "gold"', { 'app.settings': { tier: 'gold' } }).changes).toEqual([]);
    expect(plan('"app.settings.tier" = "gold"', { 'app.settings': { tier: 'silver' } }).changes).toEqual([{ key: 'app.settings.tier', file: 'gold', database: 'silver' }]);
  });

  it('compares a secret with the sealed one, showing neither value', () => {
    const stored = { 'auth.external.github.secret': sealProviderSecret(JWT, 'github', 'gh-1') };
    const body = '"auth.external.github.secret" = "env(GH)"';
    expect(plan(body, stored, { GH: 'gh-1' }).changes).toEqual([]);
    const changed = plan(body, stored, { GH: 'gh-2' });
    expect(changed.changes).toEqual([{ key: 'auth.external.github.secret', file: 'env(GH)', database: '(sealed)' }]);
    expect(JSON.stringify(changed.changes)).not.toContain('gh-');
    const hooks = { 'auth.hook.send_sms.secrets': sealHookSecrets(JWT, 'auth.hook.send_sms.secrets', 'v1,whsec_c2VjcmV0LXNpZ25pbmcta2V5LW9mLWVub3VnaC1sZW5ndGg=') };
    expect(plan('"auth.hook.send_sms.secrets" = "env(H)"', hooks, { H: 'v1,whsec_c2VjcmV0LXNpZ25pbmcta2V5LW9mLWVub3VnaC1sZW5ndGg=' }).changes).toEqual([]);
  });

  it('an unresolved reference matches any value the database holds and differs from none', () => {
    const body = '"auth.external.github.secret" = "env(GH)"';
    expect(plan(body, { 'auth.external.github.secret': sealProviderSecret(JWT, 'github', 'x') }).changes).toEqual([]);
    expect(plan(body, {}).changes).toEqual([{ key: 'auth.external.github.secret', file: 'env(GH)', database: '(not set)' }]);
    expect(plan(body, {}).assignments).toEqual([]);
  });

  it('lists the settings the file does not name that the database holds away from their default', () => {
    const result = plan('"auth.autoconfirm" = true', { 'auth.autoconfirm': true, 'auth.signing_alg': 'HS256', 'auth.site_url': 'https://x.example', 'app.settings': { a: 'b' } });
    expect(result.databaseOnly).toEqual(['app.settings.a', 'auth.site_url']);
  });
});

describe('declaredSchemas', () => {
  it('gives the api.schemas gantry.toml sets for a ref, else null', () => {
    const file = parseConfigFile('[projects.helpdesk.settings]\n"api.schemas" = "public,api"\n[projects.other]\n', 'gantry.toml');
    expect(declaredSchemas(file, 'helpdesk', {})).toEqual(['public', 'api']);
    expect(declaredSchemas(file, 'other', {})).toBeNull();
    expect(declaredSchemas(null, 'helpdesk', {})).toBeNull();
  });
});
