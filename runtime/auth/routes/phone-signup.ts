import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { SignupFields } from './session-endpoints.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction, type Queryable } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import { optionalObject } from '../http/handler.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { acceptPhone } from '../input/phone-number.js';
import { acceptChannel, phoneEnabled, textCode } from '../flows/phone-otp.js';
import type { SmsChannel } from '../sms/sms-sender.js';
import { clientIp } from '../http/request-auth.js';
import { openSession } from '../storage/sessions.js';
import { sessionJson } from '../http/session-response.js';
import { decoyUserJson, userJson, type UserJson, type UserRow } from '../storage/user-json.js';
import { DuplicatePhoneError, findUserById, findUserByPhone, insertUser, PHONE_APP_METADATA, updateUser } from '../storage/users.js';
import { isBlank } from '../http/request-fields.js';

/** A user object for a phone nobody (or somebody else) signed up with: the shape a new unconfirmed phone user has. */
export function decoyPhoneUserJson(phone: string, userMetadata: Record<string, unknown>, now: Date): UserJson {
  const decoy = decoyUserJson(randomUUID(), '', userMetadata, now);
  return { ...decoy, phone, app_metadata: PHONE_APP_METADATA, identities: [] };
}

export interface PhoneSignUp {
  readonly phone: string;
  /** Null: a password-less sign-up by SMS code (POST /otp). */
  readonly passwordHash: string | null;
  readonly data: Record<string, unknown>;
  readonly channel: SmsChannel;
  readonly ip: string | null;
}

/** What signing a number up did: a session (autoconfirm), a code texted, or nothing (the number is taken and confirmed). */
export type PhoneSignUpOutcome =
  | { readonly kind: 'session'; readonly user: UserRow; readonly session: Awaited<ReturnType<typeof openSession>>['session']; readonly refreshToken: string }
  | { readonly kind: 'texted'; readonly user: UserRow; readonly messageId: string }
  | { readonly kind: 'taken' };

async function confirmNow(db: Queryable, user: UserRow, ip: string | null, now: Date): Promise<PhoneSignUpOutcome> {
  const confirmed = (await updateUser(db, user.id, { phone_confirmed_at: now, last_sign_in_at: now }, now)) ?? user;
  const opened = await openSession(db, user.id, 'password', now);
  await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: 'signup', provider: 'phone' }, at: now });
  return { kind: 'session', user: confirmed, ...opened };
}

/**
 * GoTrue's Signup for the phone provider: a new number becomes an unconfirmed user texted a
 * code (or, with auth.sms.autoconfirm, a confirmed one signed in); an unconfirmed number is
 * texted again; a confirmed one is left alone. The code goes out inside the transaction, so a
 * provider's refusal creates no user.
 */
export async function signUpPhone(deps: AuthDeps, request: PhoneSignUp, session: boolean): Promise<PhoneSignUpOutcome> {
  const { settings } = deps.ctx;
  const autoconfirm = settings['auth.sms'].autoconfirm;
  const now = deps.now();
  if (hookEnabled(deps, 'before_user_created') && (await findUserByPhone(deps.ctx.adminPool, request.phone)) === null) {
    await runHook(deps, 'before_user_created', { user: decoyPhoneUserJson(request.phone, request.data, now) }, request.ip);
  }
  return inTransaction(deps.ctx.adminPool, async (db): Promise<PhoneSignUpOutcome> => {
    let user = await findUserByPhone(db, request.phone, true);
    if (user !== null && user.phone_confirmed_at !== null && user.phone_confirmed_at !== undefined) {
      await writeAudit(db, { event: 'user_repeated_signup', userId: user.id, ip: request.ip, payload: { provider: 'phone' }, at: now });
      return { kind: 'taken' } as const;
    }
    if (user === null) {
      if (settings['auth.disable_signup']) throw authErrors.signupDisabled();
      user = await insertUser(db, {
        email: null,
        phone: request.phone,
        passwordHash: request.passwordHash,
        userMetadata: request.data,
        appMetadata: PHONE_APP_METADATA,
        emailConfirmedAt: null,
        confirmationSentAt: null,
        bannedUntil: null,
        now,
      });
      await writeAudit(db, { event: 'user_signedup', userId: user.id, ip: request.ip, payload: { provider: 'phone', channel: request.channel }, at: now });
    }
    if (autoconfirm && session) return confirmNow(db, user, request.ip, now);
    if (autoconfirm) user = (await updateUser(db, user.id, { phone_confirmed_at: now }, now)) ?? user;
    else await writeAudit(db, { event: 'user_confirmation_requested', userId: user.id, ip: request.ip, payload: { provider: 'phone' }, at: now });
    const texted = await textCode(deps, db, user, request.phone, 'sms', request.channel, request.ip);
    return { kind: 'texted', user: (await findUserById(db, user.id)) ?? user, messageId: texted.messageId } as const;
  }).catch((error: unknown) => {
    // A concurrent sign-up took the number first.
    if (error instanceof DuplicatePhoneError) return { kind: 'taken' } as const;
    throw error;
  });
}

/** POST /signup with `phone` (and a password the caller checked). */
export async function signUpWithPhone(req: Request, res: Response, deps: AuthDeps, body: SignupFields, password: string): Promise<void> {
  if (!phoneEnabled(deps)) throw authErrors.phoneDisabled(400, 'Phone signups are disabled');
  const phone = acceptPhone(body.phone);
  const channel = acceptChannel(deps, body.channel);
  // Phone sign-ups answer with the session itself, so there is no code to exchange.
  if (!isBlank(body.code_challenge)) throw authErrors.validation('PKCE not supported for phone signups');
  const data = optionalObject(body.data, 'data') ?? {};
  const outcome = await signUpPhone(deps, { phone, passwordHash: await deps.passwords.hash(password), data, channel, ip: clientIp(req) }, true);
  if (outcome.kind === 'session') {
    const session = await sessionJson(deps, outcome.user, outcome.session, outcome.refreshToken);
    res.status(200).json({ ...session, session });
    return;
  }
  if (outcome.kind === 'taken') {
    if (deps.ctx.settings['auth.sms'].autoconfirm) throw authErrors.userAlreadyExists();
    res.status(200).json({ user: decoyPhoneUserJson(phone, data, deps.now()), session: null });
    return;
  }
  res.status(200).json({ user: userJson(outcome.user), session: null });
}
