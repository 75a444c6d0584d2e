import { describe, expect, it } from 'vitest';
import { declaredIn, diffSettings, settingsMarkdown, settingsText } from '../../../generator/settings/file-diff.js';

const BASE = '[projects.helpdesk.settings]\n"auth.autoconfirm" = false\n"auth.site_url" = "https://a.example"\n"auth.external.github.secret" = "env(GH)"\n';
const HEAD = '[projects.helpdesk.settings]\n"auth.autoconfirm" = true\n"auth.external.github.secret" = "env(GH2)"\n"api.max_rows" = 50\n';

describe('settings diff', () => {
  it('lists added, removed and changed settings in key order; secrets by their reference', () => {
    const diffs = diffSettings(declaredIn(BASE, 'base', 'helpdesk'), declaredIn(HEAD, 'head', 'helpdesk'));
    expect(diffs).toEqual([
      { key: 'api.max_rows', change: 'added', base: null, head: '50' },
      { key: 'auth.autoconfirm', change: 'changed', base: 'false', head: 'true' },
      { key: 'auth.external.github.secret', change: 'changed', base: '"env(GH)"', head: '"env(GH2)"' },
      { key: 'auth.site_url', change: 'removed', base: '"https://a.example"', head: null },
    ]);
    expect(settingsText('helpdesk', diffs)).toBe(
      [
        'Settings: 4 changed in gantry.toml [projects.helpdesk.settings]',
        '  + api.max_rows = 50',
        '  ~ auth.autoconfirm: false -> true',
        '  ~ auth.external.github.secret: "env(GH)" -> "env(GH2)"',
        '  - auth.site_url (was "https://a.example")',
      ].join('\n'),
    );
    expect(settingsMarkdown('helpdesk', diffs.slice(1, 2), 'HEAD', 'working tree')).toBe(
      ['#### Settings (gantry.toml `[projects.helpdesk.settings]`)', '', '| Setting | HEAD | working tree |', '|---|---|---|', '| `auth.autoconfirm` | `false` | `true` |'].join('\n'),
    );
  });

  it('never shows a secret written as a value, and is empty when nothing changed', () => {
    const literal = '[projects.helpdesk.settings]\n"auth.sms.twilio.auth_token" = "tok-123"\n';
    expect(diffSettings(declaredIn(null, 'base', 'helpdesk'), declaredIn(literal, 'head', 'helpdesk'))).toEqual([
      { key: 'auth.sms.twilio.auth_token', change: 'added', base: null, head: '(secret value)' },
    ]);
    expect(settingsText('helpdesk', diffSettings(declaredIn(BASE, 'a', 'helpdesk'), declaredIn(BASE, 'b', 'helpdesk')))).toBe('');
  });
});
