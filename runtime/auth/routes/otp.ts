import type { Request, Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction, type Queryable } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import { bodyOf, enforceRateLimit, handle, inBackground, optionalObject } from '../http/handler.js';
import { createFlowState } from '../storage/flow-state.js';
import { mailLink, type LinkMail } from '../flows/mail-out.js';
import { issueOneTimeToken } from '../storage/one-time-tokens.js';
import { acceptPkceParams, type PkceChallenge } from '../credentials/pkce.js';
import { clientIp, requireApiKey } from '../http/request-auth.js';
import type { UserRow } from '../storage/user-json.js';
import { DuplicateEmailError, EMAIL_APP_METADATA, findUserByEmail, insertUser, updateUser } from '../storage/users.js';
import { acceptEmail, acceptRedirect, isBlank } from '../http/request-fields.js';
import { signInWithSms, wantsSms } from './sms-otp.js';
import type { MagicLinkFields, OtpFields } from './session-endpoints.js';

interface OtpRequest {
  readonly email: string;
  readonly createUser: boolean;
  readonly data: Readonly<Record<string, unknown>>;
  readonly redirectTo: string | null;
  readonly pkce: PkceChallenge | null;
  readonly ip: string | null;
  readonly now: Date;
}

/** A magic link and code for a confirmed account. */
async function magicLinkFor(deps: AuthDeps, db: Queryable, user: UserRow, request: OtpRequest): Promise<LinkMail> {
  const { now, ip } = request;
  // GoTrue counts a magic link as a recovery request (same slot, same timestamp).
  await updateUser(db, user.id, { recovery_sent_at: now }, now);
  await writeAudit(db, { event: 'user_recovery_requested', userId: user.id, ip, payload: { email: user.email, via: 'magiclink' }, at: now });
  const flowStateId = request.pkce === null ? null : await createFlowState(db, user.id, 'magiclink', request.pkce, now);
  const issued = await issueOneTimeToken(db, user.id, 'magiclink', now, { lifetimeSeconds: deps.ctx.settings['auth.otp_expiry'], flowStateId });
  return { kind: 'magic_link', to: request.email, issued, redirectTo: request.redirectTo };
}

/** A confirmation link and code for an account that has not confirmed its address yet: following it signs in too. */
async function confirmationFor(deps: AuthDeps, db: Queryable, user: UserRow, request: OtpRequest): Promise<LinkMail> {
  const { now } = request;
  await updateUser(db, user.id, { confirmation_sent_at: now }, now);
  await writeAudit(db, { event: 'user_confirmation_requested', userId: user.id, ip: request.ip, payload: { email: user.email, via: 'otp' }, at: now });
  const flowStateId = request.pkce === null ? null : await createFlowState(db, user.id, 'email/signup', request.pkce, now);
  const issued = await issueOneTimeToken(db, user.id, 'confirmation', now, { lifetimeSeconds: deps.ctx.settings['auth.otp_expiry'], flowStateId });
  return { kind: 'confirmation', to: request.email, issued, redirectTo: request.redirectTo };
}

/**
 * GoTrue's MagicLink: a confirmed account gets a magic link; an unconfirmed one its
 * confirmation mail; an unknown address is signed up (password-less) when allowed,
 * then mailed as either. Null when nothing is to be sent.
 */
async function prepareMail(deps: AuthDeps, request: OtpRequest): Promise<LinkMail | null> {
  const { settings } = deps.ctx;
  return inTransaction(deps.ctx.adminPool, async (db) => {
    const existing = await findUserByEmail(db, request.email);
    if (existing !== null) {
      return existing.email_confirmed_at === null ? confirmationFor(deps, db, existing, request) : magicLinkFor(deps, db, existing, request);
    }
    if (!request.createUser || settings['auth.disable_signup']) return null;
    const { now } = request;
    const created = await insertUser(db, {
      email: request.email,
      passwordHash: null,
      userMetadata: request.data,
      appMetadata: EMAIL_APP_METADATA,
      emailConfirmedAt: settings['auth.autoconfirm'] ? now : null,
      confirmationSentAt: null,
      bannedUntil: null,
      now,
    });
    await writeAudit(db, { event: 'user_signedup', userId: created.id, ip: request.ip, payload: { email: request.email, via: 'otp' }, at: now });
    return settings['auth.autoconfirm'] ? magicLinkFor(deps, db, created, request) : confirmationFor(deps, db, created, request);
  }).catch((error: unknown) => {
    // A concurrent request signed the address up first; its mail is on the way.
    if (error instanceof DuplicateEmailError) return null;
    throw error;
  });
}

/** GoTrue's OtpParams.Validate for an e-mail address (a phone goes to signInWithSms first). */
function acceptOtpEmail(body: OtpFields): string {
  if (!isBlank(body.email) && !isBlank(body.phone)) throw authErrors.validation('Only an email address or phone number should be provided');
  if (!isBlank(body.email) && !isBlank(body.channel)) throw authErrors.validation('Channel should only be specified with Phone OTP');
  if (isBlank(body.email)) throw authErrors.validation('One of email or phone must be set');
  return acceptEmail(body.email);
}

/** /magiclink, GoTrue's older entry point: e-mail only, always allowed to sign up. */
function acceptMagicLinkEmail(body: MagicLinkFields): string {
  if (isBlank(body.email)) throw authErrors.disabled(422, 'validation_failed', 'Password recovery requires an email');
  return acceptEmail(body.email);
}

/** The mail of either entry point, prepared and sent after the answer (`{}`) has gone. */
function mailInBackground(req: Request, deps: AuthDeps, email: string, pkce: PkceChallenge | null, createUser: boolean, data: unknown): void {
  const request: OtpRequest = {
    email,
    createUser,
    data: optionalObject(data, 'data') ?? {},
    redirectTo: acceptRedirect(req, deps),
    pkce,
    ip: clientIp(req),
    now: deps.now(),
  };
  inBackground(deps, 'magic link', async () => {
    const mail = await prepareMail(deps, request);
    if (mail !== null) mailLink(deps, mail);
  });
}

/**
 * auth-js `signInWithOtp({email})` (a phone: sms-otp.ts): a mail with a link and a 6-digit code. The
 * answer is `{}` whatever the address, and the account is looked up after it has
 * gone, so neither content nor timing tells whether the address has an account
 * (GoTrue answers 422 otp_disabled for an unknown one with create_user false).
 */
export function registerOtp(router: Router, deps: AuthDeps): void {
  router.post(
    '/otp',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'otp');
      const body: OtpFields = bodyOf(req);
      if (wantsSms(body)) {
        acceptPkceParams(body);
        await signInWithSms(req, res, deps, body);
        return;
      }
      const email = acceptOtpEmail(body);
      mailInBackground(req, deps, email, acceptPkceParams(body), body.create_user !== false, body.data);
      res.status(200).json({});
    }),
  );
  router.post(
    '/magiclink',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'magiclink');
      const body: MagicLinkFields = bodyOf(req);
      const email = acceptMagicLinkEmail(body);
      mailInBackground(req, deps, email, acceptPkceParams(body), true, body.data);
      res.status(200).json({});
    }),
  );
}
