import type { OutgoingMail } from '../../mail/mailer.js';
import { renderMail, type MailKind, type MailVariables } from '../../mail/render.js';
import type { AuthDeps } from '../auth-deps.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { inBackground } from '../http/handler.js';
import type { IssuedOneTimeToken } from '../storage/one-time-tokens.js';
import { verifyLink, type LinkType } from './redirects.js';
import { userJson } from '../storage/user-json.js';
import { findUserById } from '../storage/users.js';

type LinkMailKind = Exclude<MailKind, 'reauthentication'>;

const LINK_TYPE: Readonly<Record<LinkMailKind, LinkType>> = {
  confirmation: 'signup',
  recovery: 'recovery',
  email_change: 'email_change',
  email_change_current: 'email_change',
  magic_link: 'magiclink',
  invite: 'invite',
};

/** GoTrue's `email_action_type` of each mail: a link mail's verify type. */
const ACTION_TYPE: Readonly<Record<MailKind, string>> = { ...LINK_TYPE, reauthentication: 'reauthentication' };

/**
 * Sends a mail after the response has gone out: to the send-email hook when the project has
 * one (GoTrue's payload: the account and `email_data`), else through the mailer. Failures are
 * logged, as GoTrue's background sending does, so they reveal nothing about the account.
 */
function deliver(deps: AuthDeps, mail: OutgoingMail, issued: IssuedOneTimeToken, redirectTo: string | null): void {
  inBackground(deps, `${mail.kind} mail`, async () => {
    if (!hookEnabled(deps, 'send_email')) {
      await deps.mailer.send(mail);
      return;
    }
    const user = await findUserById(deps.ctx.adminPool, issued.userId);
    if (user === null) return;
    const emailData = {
      token: issued.code,
      token_hash: issued.token,
      redirect_to: redirectTo ?? '',
      email_action_type: ACTION_TYPE[mail.kind],
      site_url: `${deps.ctx.config.publicUrl}/v1/${deps.ctx.ref}/auth/v1`,
      token_new: '',
      token_hash_new: '',
      old_email: '',
      old_phone: '',
      provider: '',
      factor_type: '',
    };
    await runHook(deps, 'send_email', { user: userJson(user), email_data: emailData }, null);
  });
}

export interface LinkMail {
  readonly kind: LinkMailKind;
  /** The recipient: the account's address, or the new one for an e-mail change. */
  readonly to: string;
  readonly issued: IssuedOneTimeToken;
  readonly redirectTo: string | null;
}

/** A lifetime in the largest whole unit: "1 hour", "24 hours", "5 minutes", "90 seconds". */
export function describeLifetime(seconds: number): string {
  const [count, unit] = seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** Sends a mail with a verify link and its code after the response has gone out. */
export function mailLink(deps: AuthDeps, mail: LinkMail, variables: Partial<Pick<MailVariables, 'email' | 'newEmail'>> = {}): void {
  const { kind, to, issued } = mail;
  const link = verifyLink(deps.ctx.config.publicUrl, deps.ctx.ref, issued.token, LINK_TYPE[kind], mail.redirectTo);
  const rendered = renderMail(kind, {
    email: to,
    ...variables,
    projectRef: deps.ctx.ref,
    link,
    code: issued.code,
    validFor: describeLifetime(issued.lifetimeSeconds),
  });
  deliver(deps, { ...rendered, ref: deps.ctx.ref, kind, to }, issued, mail.redirectTo);
}

/** The mails of a requested e-mail change: to the new address, and (secure e-mail change) to the current one. */
export interface EmailChangeMails {
  /** The account's current address; '' for an anonymous account linking its first. */
  readonly account: string;
  readonly newEmail: string;
  readonly token: IssuedOneTimeToken | null;
  readonly currentToken: IssuedOneTimeToken | null;
  readonly redirectTo: string | null;
}

export function mailEmailChange(deps: AuthDeps, mails: EmailChangeMails): void {
  const variables = { email: mails.account, newEmail: mails.newEmail };
  const { redirectTo } = mails;
  if (mails.token !== null) mailLink(deps, { kind: 'email_change', to: mails.newEmail, issued: mails.token, redirectTo }, variables);
  if (mails.currentToken !== null) mailLink(deps, { kind: 'email_change_current', to: mails.account, issued: mails.currentToken, redirectTo }, variables);
}

/** Sends a reauthentication nonce: a code, no link. */
export function mailNonce(deps: AuthDeps, to: string, issued: IssuedOneTimeToken): void {
  const rendered = renderMail('reauthentication', {
    email: to,
    projectRef: deps.ctx.ref,
    link: '',
    code: issued.code,
    validFor: describeLifetime(issued.lifetimeSeconds),
  });
  deliver(deps, { ...rendered, ref: deps.ctx.ref, kind: 'reauthentication', to }, issued, null);
}
