import { describe, expect, it } from 'vitest';
import { setSettingInText } from '../../../generator/settings/toml-edit.js';

const FILE = `# The team's projects.
[projects.helpdesk]

[projects.helpdesk.settings]
# Sign-up without a confirmation e-mail while we test.
"auth.autoconfirm" = false   # for now
auth.site_url = "https://old.example"

[projects.other.settings]
"auth.autoconfirm" = true
`;

describe('setSettingInText', () => {
  it("replaces the key's line, whatever its quoting, keeping comments and order", () => {
    const edited = setSettingInText(FILE, 'gantry.toml', 'helpdesk', 'auth.site_url', 'https://helpdesk.example');
    expect(edited).toBe(FILE.replace('auth.site_url = "https://old.example"', '"auth.site_url" = "https://helpdesk.example"'));
    expect(setSettingInText(FILE, 'gantry.toml', 'helpdesk', 'auth.autoconfirm', true)).toBe(FILE.replace('"auth.autoconfirm" = false   # for now', '"auth.autoconfirm" = true'));
  });

  it("appends a new key at the end of the project's table, not another project's", () => {
    const edited = setSettingInText(FILE, 'gantry.toml', 'helpdesk', 'auth.otp_expiry', 600);
    expect(edited).toBe(FILE.replace('auth.site_url = "https://old.example"\n', 'auth.site_url = "https://old.example"\n"auth.otp_expiry" = 600\n'));
  });

  it("adds the settings table after the project's own when there is none", () => {
    const text = '[projects.helpdesk]\n\n[projects.other]\n';
    expect(setSettingInText(text, 'gantry.toml', 'helpdesk', 'auth.autoconfirm', true)).toBe(
      '[projects.helpdesk]\n\n[projects.helpdesk.settings]\n"auth.autoconfirm" = true\n\n[projects.other]\n',
    );
    expect(setSettingInText('', 'gantry.toml', 'fresh', 'auth.site_url', 'https://x.example')).toBe('[projects.fresh.settings]\n"auth.site_url" = "https://x.example"\n');
  });

  it('refuses an edit it cannot make safely, with the line to add', () => {
    const nested = '[projects.helpdesk.settings.auth]\nautoconfirm = false\n';
    expect(() => setSettingInText(nested, '/repo/gantry.toml', 'helpdesk', 'auth.autoconfirm', true)).toThrow(
      'cannot edit /repo/gantry.toml safely; add this line to [projects.helpdesk.settings] yourself: "auth.autoconfirm" = true',
    );
  });

  it('writes strings as TOML strings, escaped', () => {
    const edited = setSettingInText('[projects.helpdesk.settings]\n', 'gantry.toml', 'helpdesk', 'app.settings.note', 'a "quoted" \\ value');
    expect(edited).toBe('[projects.helpdesk.settings]\n"app.settings.note" = "a \\"quoted\\" \\\\ value"\n');
  });
});
