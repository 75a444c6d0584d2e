import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { GantryConfig } from '../config.js';
import type { MailKind, RenderedMail } from './render.js';

export interface OutgoingMail extends RenderedMail {
  readonly ref: string;
  readonly kind: MailKind;
  readonly to: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

/** The subset of a pino logger the mailer writes to. */
export interface MailLog {
  info(fields: Record<string, unknown>, message: string): void;
}

/**
 * SMTP when `SMTP_URL` is set; otherwise the contract's outbox: one `.eml` file per
 * mail in `GANTRY_HOME/mail/<ref>/`. Log lines name the recipient and file, never
 * the link (it carries the token).
 */
export function createMailer(config: Pick<GantryConfig, 'smtpUrl' | 'smtpFrom' | 'gantryHome'>, log: MailLog): Mailer {
  if (config.smtpUrl !== null) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return {
      async send(mail) {
        const info = await transport.sendMail({ from: config.smtpFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
        log.info({ ref: mail.ref, kind: mail.kind, to: mail.to, messageId: info.messageId }, 'mail sent over SMTP');
      },
    };
  }
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await composer.sendMail({ from: config.smtpFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      const dir = path.join(config.gantryHome, 'mail', mail.ref);
      await mkdir(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = path.join(dir, `${stamp}-${mail.kind}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      log.info({ ref: mail.ref, kind: mail.kind, to: mail.to, file }, 'mail written to outbox');
    },
  };
}
