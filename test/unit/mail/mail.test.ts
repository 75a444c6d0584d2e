import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMailer } from '../../../runtime/mail/mailer.js';
import { renderMail } from '../../../runtime/mail/render.js';
import { describeLifetime } from '../../../runtime/auth/flows/mail-out.js';

const link = 'http://127.0.0.1:54321/v1/demo/auth/v1/verify?token=abc_DEF-123&type=signup';

describe('renderMail', () => {
  it('renders confirmation text without escaping and HTML with escaping', () => {
    const mail = renderMail('confirmation', { email: 'a<b>@example.com', projectRef: 'demo', link, code: '042917', validFor: '24 hours' });
    expect(mail.subject).toBe('Confirm your e-mail address');
    expect(mail.text).toContain(`\n${link}\n`);
    expect(mail.text).toContain('valid for 24 hours');
    expect(mail.html).toContain(`href="${link.replaceAll('&', '&amp;').replaceAll('=', '&#x3D;')}"`);
    expect(mail.html).toContain('a&lt;b&gt;@example.com');
  });

  it('renders the recovery mail', () => {
    const recovery = link.replace('signup', 'recovery');
    const mail = renderMail('recovery', { email: 'a@example.com', projectRef: 'demo', link: recovery, code: '042917', validFor: '1 hour' });
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain(recovery);
    expect(mail.text).toContain('valid for 1 hour');
  });

  it('renders the e-mail change mail with the current and the new address', () => {
    const change = link.replace('signup', 'email_change');
    const mail = renderMail('email_change', { email: 'old@example.com', newEmail: 'n<e>w@example.com', projectRef: 'demo', link: change, code: '042917', validFor: '24 hours' });
    expect(mail.subject).toBe('Confirm your new e-mail address');
    expect(mail.text).toContain('the account old@example.com on demo asked to change its e-mail address to n<e>w@example.com.');
    expect(mail.text).toContain(`\n${change}\n`);
    expect(mail.html).toContain('n&lt;e&gt;w@example.com');
    expect(mail.html).toContain(`href="${change.replaceAll('&', '&amp;').replaceAll('=', '&#x3D;')}"`);
  });
});

describe('outbox mailer', () => {
  it('writes one .eml per mail under GANTRY_HOME/mail/<ref>/ and logs without the link', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'gantry-mail-'));
    const lines: Array<Record<string, unknown>> = [];
    const mailer = createMailer({ smtpUrl: null, smtpFrom: 'no-reply@localhost', gantryHome: home }, {
      info: (fields, message) => lines.push({ ...fields, message }),
    });
    const rendered = renderMail('confirmation', { email: 'a@example.com', projectRef: 'demo', link, code: '042917', validFor: '24 hours' });
    await mailer.send({ ...rendered, ref: 'demo', kind: 'confirmation', to: 'a@example.com' });
    const dir = path.join(home, 'mail', 'demo');
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-confirmation-[0-9a-f]{8}\.eml$/);
    const eml = await readFile(path.join(dir, files[0]!), 'utf8');
    expect(eml).toContain('To: a@example.com');
    expect(eml).toContain('From: no-reply@localhost');
    expect(eml).toContain('Subject: Confirm your e-mail address');
    expect(eml).toContain('abc_DEF-123');
    expect(lines).toEqual([
      { ref: 'demo', kind: 'confirmation', to: 'a@example.com', file: path.join(dir, files[0]!), message: 'mail written to outbox' },
    ]);
    expect(JSON.stringify(lines)).not.toContain('abc_DEF-123');
    await rm(home, { recursive: true, force: true });
  });
});

describe('describeLifetime', () => {
  it('names a lifetime in its largest whole unit', () => {
    expect([3600, 86400, 120, 60, 90, 1].map(describeLifetime)).toEqual(['1 hour', '24 hours', '2 minutes', '1 minute', '90 seconds', '1 second']);
  });
});
