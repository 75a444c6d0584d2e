import { randomUUID } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { inTransaction, type Queryable } from '../../db/transaction.js';
import type { BodyOf, DeclaredFields } from '../../http/endpoint.js';
import type { adminEndpoints } from './admin-endpoints.js';
import type { ChallengeFields, EnrollFields, FactorVerifyFields } from './mfa-endpoints.js';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { AuthError, authErrors } from '../http/errors.js';
import {
  CHALLENGE_EXPIRY_SECONDS,
  MAX_ENROLLED_FACTORS,
  MAX_VERIFIED_FACTORS,
  deleteAbandonedFactors,
  deleteChallenge,
  deleteFactor,
  factorJson,
  findChallenge,
  findOwnedFactor,
  insertChallenge,
  insertFactor,
  listFactors,
  openTotpSecret,
  recordVerification,
  renameFactor,
  sealTotpSecret,
  type FactorRow,
  type WebAuthnFactorCredential,
} from '../storage/factors.js';
import { bodyOf, enforceRateLimit, handle, optionalObject } from '../http/handler.js';
import { encodeQr, qrSvg } from '../credentials/qr-code.js';
import { clientIp, requireAdmin, requireSession, type SessionUser } from '../http/request-auth.js';
import { findLiveSession, replaceRefreshToken, revokeAal1Sessions, revokeSessions } from '../storage/sessions.js';
import { attemptDecisionFrom } from '../hooks/hook-output.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { sessionJson } from '../http/session-response.js';
import { base32Decode, generateTotpSecret, matchTotpStep, otpauthUri } from '../credentials/totp.js';
import type { UserRow } from '../storage/user-json.js';
import { findUserById, isUuid } from '../storage/users.js';
import { factorCeremony, verifyFactorResponse, type CeremonyType, type FactorCeremony } from '../flows/webauthn-factor.js';
import { projectRelyingParty } from '../../settings/webauthn-rp.js';
import { acceptFactorPhone, phoneCodeMatches, phoneFactorErrors, replacedPhoneFactors, textChallengeCode } from '../flows/phone-factor.js';
import { acceptChannel } from '../flows/phone-otp.js';

/**
 * Supabase Auth's MFA API for TOTP factors and, with `auth.mfa.webauthn.enabled`, WebAuthn
 * factors, with `auth.mfa.phone.enabled` phone factors (codes by SMS): enrol, challenge, verify (raising the session to
 * aal2), unenrol, and the admin's list, update and delete of a user's factors.
 */

const FACTOR_TYPES_MESSAGE = 'factor_type needs to be totp, phone, or webauthn';

const mfaError = {
  nameConflict: (name: string) =>
    new AuthError(422, 'mfa_factor_name_conflict', `A factor with the friendly name ${JSON.stringify(name)} for this user already exists`),
  tooMany: () => new AuthError(422, 'too_many_enrolled_mfa_factors', 'Maximum number of verified factors reached, unenroll to continue'),
  enrollNeedsAal2: () => new AuthError(403, 'insufficient_aal', 'AAL2 required to enroll a new factor'),
  unenrollNeedsAal2: () => new AuthError(422, 'insufficient_aal', 'AAL2 required to unenroll verified factor'),
  factorNotFound: () => new AuthError(404, 'mfa_factor_not_found', 'Factor not found'),
  factorIdNotUuid: () => new AuthError(404, 'validation_failed', 'factor_id must be an UUID'),
  challengeNotFound: () => new AuthError(422, 'mfa_factor_not_found', 'MFA factor with the provided challenge ID not found'),
  ipMismatch: () => new AuthError(422, 'mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch.'),
  challengeExpired: (id: string) =>
    new AuthError(
      422,
      'mfa_challenge_expired',
      `MFA challenge ${id} has expired, verify against another challenge or create a new challenge.`,
    ),
  verificationFailed: () => new AuthError(422, 'mfa_verification_failed', 'Invalid TOTP code entered'),
  webAuthnVerificationFailed: () => new AuthError(422, 'mfa_verification_failed', 'WebAuthn response could not be verified'),
  webAuthnVerifyDisabled: () => new AuthError(422, 'mfa_webauthn_verify_not_enabled', 'MFA verification is disabled for WebAuthn'),
  anonymous: () => new AuthError(403, 'no_authorization', 'Anonymous user not allowed to perform these actions'),
} as const;

/** The error of Go's JSON decoder for a field of the wrong type; null means absent, as in Go. */
/** A declared field (`B` an endpoint's declared fields) as GoTrue's Go struct reads it: absent is "", any other non-string a JSON error. */
function stringField<B extends object>(body: B, field: keyof B & string, struct: string): string {
  const value = (body as Readonly<Record<string, unknown>>)[field];
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  const goType = typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : Array.isArray(value) ? 'array' : 'object';
  throw authErrors.badJson(`json: cannot unmarshal ${goType} into Go struct field ${struct}.${field} of type string`);
}

async function signedInUser(req: Request, deps: AuthDeps): Promise<SessionUser> {
  const authenticated = await requireSession(req, deps);
  if (authenticated.claims.is_anonymous === true) throw mfaError.anonymous();
  return authenticated;
}

async function ownedFactor(db: Queryable, userId: string, factorId: unknown, forUpdate = false): Promise<FactorRow> {
  if (!isUuid(factorId)) throw mfaError.factorIdNotUuid();
  const factor = await findOwnedFactor(db, userId, factorId, forUpdate);
  if (factor === null) throw mfaError.factorNotFound();
  return factor;
}

/** GoTrue's default issuer: the site URL's host. */
function defaultIssuer(deps: AuthDeps): string {
  try {
    return new URL(deps.redirects.siteUrl).host;
  } catch {
    throw new AuthError(500, 'unexpected_failure', 'site url is improperly formatted');
  }
}

/** GoTrue's checks before an enrolment, in its order. */
function checkEnrollment(factors: readonly FactorRow[], friendlyName: string, sessionAal: string): void {
  const conflict = factors.find((factor) => factor.friendly_name === friendlyName);
  if (conflict !== undefined) throw mfaError.nameConflict(friendlyName);
  const verified = factors.filter((factor) => factor.status === 'verified').length;
  if (factors.length >= MAX_ENROLLED_FACTORS || verified >= MAX_VERIFIED_FACTORS) throw mfaError.tooMany();
  if (verified > 0 && sessionAal !== 'aal2') throw mfaError.enrollNeedsAal2();
}

/** GoTrue's WebAuthn enrolment: an unverified factor, its credential registered by the first challenge and verify. */
async function enrollWebAuthn(req: Request, res: Response, deps: AuthDeps, { user, session }: Pick<SessionUser, 'user' | 'session'>, friendlyName: string): Promise<void> {
  const now = deps.now();
  const factor = await inTransaction(deps.ctx.adminPool, async (db) => {
    await deleteAbandonedFactors(db, user.id, now);
    checkEnrollment(await listFactors(db, user.id), friendlyName, session.aal);
    const id = randomUUID();
    const created = await insertFactor(db, { id, userId: user.id, friendlyName, type: 'webauthn', secretSealed: null }, now).catch((error: unknown) => {
      throw (error as { code?: string }).code === '23505' ? mfaError.nameConflict(friendlyName) : error;
    });
    await writeAudit(db, { event: 'factor_in_progress', userId: user.id, ip: clientIp(req), payload: { factor_id: id, factor_type: 'webauthn' }, at: now });
    return created;
  });
  res.status(200).json({ id: factor.id, type: 'webauthn', friendly_name: factor.friendly_name });
}

/** GoTrue's phone enrolment: an unverified factor for the number (replacing unverified ones for it), verified by its first challenge's code. */
async function enrollPhone(req: Request, res: Response, deps: AuthDeps, { user, session }: Pick<SessionUser, 'user' | 'session'>, friendlyName: string, given: string): Promise<void> {
  const phone = acceptFactorPhone(given);
  const now = deps.now();
  const factor = await inTransaction(deps.ctx.adminPool, async (db) => {
    for (const replaced of replacedPhoneFactors(await listFactors(db, user.id), phone)) await deleteFactor(db, replaced, now);
    await deleteAbandonedFactors(db, user.id, now);
    checkEnrollment(await listFactors(db, user.id), friendlyName, session.aal);
    const id = randomUUID();
    const created = await insertFactor(db, { id, userId: user.id, friendlyName, type: 'phone', secretSealed: null, phone }, now).catch((error: unknown) => {
      throw (error as { code?: string }).code === '23505' ? mfaError.nameConflict(friendlyName) : error;
    });
    await writeAudit(db, { event: 'factor_in_progress', userId: user.id, ip: clientIp(req), payload: { factor_id: id, factor_type: 'phone' }, at: now });
    return created;
  });
  // GoTrue answers the number as it was given.
  res.status(200).json({ id: factor.id, type: 'phone', friendly_name: factor.friendly_name, phone: given });
}

/** Registration options for an unverified factor (the user's other WebAuthn credentials excluded), else assertion options. */
async function webAuthnCeremony(deps: AuthDeps, user: UserRow, factor: FactorRow): Promise<FactorCeremony> {
  const others = (await listFactors(deps.ctx.adminPool, user.id)).flatMap((f) => (f.web_authn_credential === null ? [] : [f.web_authn_credential.id]));
  return factorCeremony(projectRelyingParty(deps), { id: user.id, email: user.email ?? '' }, factor.web_authn_credential, others);
}

/** GoTrue's checks of `webauthn` in a verify body, in its order. */
function webAuthnVerifyParams(deps: AuthDeps, body: FactorVerifyFields): { readonly type: CeremonyType; readonly response: Record<string, unknown> } {
  if (!deps.ctx.settings['auth.mfa.webauthn.enabled']) throw mfaError.webAuthnVerifyDisabled();
  const params = optionalObject(body.webauthn, 'webauthn');
  if (params === undefined) throw authErrors.validation('WebAuthn config required');
  if (params.type !== 'create' && params.type !== 'request') throw authErrors.validation('WebAuthn type must be create or request');
  const response = params.credential_response;
  if (response === undefined || response === null) throw authErrors.validation('credential_response required');
  if (typeof response !== 'object' || Array.isArray(response)) throw authErrors.validation('Invalid credential_response');
  return { type: params.type, response: response as Record<string, unknown> };
}

function registerEnroll(router: Router, deps: AuthDeps): void {
  router.post(
    '/factors',
    handle(deps, async (req, res) => {
      const { user, session } = await signedInUser(req, deps);
      const body: EnrollFields = bodyOf(req);
      const friendlyName = stringField(body, 'friendly_name', 'EnrollFactorParams');
      const factorType = stringField(body, 'factor_type', 'EnrollFactorParams');
      const issuerParam = stringField(body, 'issuer', 'EnrollFactorParams');
      if (factorType === 'phone') {
        if (!deps.ctx.settings['auth.mfa.phone.enabled']) throw phoneFactorErrors.enrollDisabled();
        await enrollPhone(req, res, deps, { user, session }, friendlyName, stringField(body, 'phone', 'EnrollFactorParams'));
        return;
      }
      if (factorType === 'webauthn') {
        if (!deps.ctx.settings['auth.mfa.webauthn.enabled']) throw authErrors.disabled(422, 'mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn');
        await enrollWebAuthn(req, res, deps, { user, session }, friendlyName);
        return;
      }
      if (factorType !== 'totp') throw authErrors.validation(FACTOR_TYPES_MESSAGE);
      const issuer = issuerParam === '' ? defaultIssuer(deps) : issuerParam;
      const now = deps.now();
      const secret = generateTotpSecret();
      // GoTrue's TOTP library refuses an empty account name; only an address-less user has one.
      if (user.email === null || user.email === '') throw new AuthError(500, 'unexpected_failure', 'Error generating QR Code');
      const uri = otpauthUri(issuer, user.email, secret);
      const factor = await inTransaction(deps.ctx.adminPool, async (db) => {
        await deleteAbandonedFactors(db, user.id, now);
        checkEnrollment(await listFactors(db, user.id), friendlyName, session.aal);
        const id = randomUUID();
        const created = await insertFactor(
          db,
          { id, userId: user.id, friendlyName, type: 'totp', secretSealed: sealTotpSecret(deps.ctx.jwtSecret, id, secret) },
          now,
        ).catch((error: unknown) => {
          // Two enrolments with one name at once: the unique index has the last word.
          throw (error as { code?: string }).code === '23505' ? mfaError.nameConflict(friendlyName) : error;
        });
        await writeAudit(db, { event: 'factor_in_progress', userId: user.id, ip: clientIp(req), payload: { factor_id: id }, at: now });
        return created;
      });
      res.status(200).json({
        id: factor.id,
        type: 'totp',
        friendly_name: factor.friendly_name,
        // Raw SVG as GoTrue sends it; auth-js turns it into a data URI.
        totp: { qr_code: qrSvg(encodeQr(uri, 'H')), secret, uri },
      });
    }),
  );
}

/** Read only for a phone factor (its `channel`): the other factors take no body. */
function challengeFields(req: Request): ChallengeFields {
  return bodyOf(req);
}

function registerChallenge(router: Router, deps: AuthDeps): void {
  router.post(
    '/factors/:factor_id/challenge',
    handle(deps, async (req, res) => {
      const { user } = await signedInUser(req, deps);
      const factor = await ownedFactor(deps.ctx.adminPool, user.id, req.params.factor_id);
      await enforceRateLimit(req, deps, 'mfa_challenge');
      if (factor.factor_type === 'webauthn' && !deps.ctx.settings['auth.mfa.webauthn.enabled']) throw mfaError.webAuthnVerifyDisabled();
      if (factor.factor_type === 'phone' && !deps.ctx.settings['auth.mfa.phone.enabled']) throw phoneFactorErrors.verifyDisabled();
      const ceremony = factor.factor_type === 'webauthn' ? await webAuthnCeremony(deps, user, factor) : null;
      const texted =
        factor.factor_type === 'phone' ? await textChallengeCode(deps, user, factor, acceptChannel(deps, challengeFields(req).channel), clientIp(req)) : null;
      const now = deps.now();
      const challenge = await inTransaction(deps.ctx.adminPool, async (db) => {
        const kept = ceremony !== null ? { webAuthnChallenge: ceremony.challenge } : texted !== null ? texted : {};
        const created = await insertChallenge(db, factor.id, clientIp(req) ?? '', now, kept);
        await writeAudit(db, {
          event: 'challenge_created',
          userId: user.id,
          ip: clientIp(req),
          payload: { factor_id: factor.id, factor_status: factor.status },
          at: now,
        });
        return created;
      });
      res.status(200).json({
        id: challenge.id,
        type: factor.factor_type,
        expires_at: Math.floor(challenge.created_at.getTime() / 1000) + CHALLENGE_EXPIRY_SECONDS,
        ...(ceremony === null ? {} : { webauthn: { type: ceremony.type, credential_options: { publicKey: ceremony.publicKey } } }),
      });
    }),
  );
}

type VerifyOutcome = { readonly ok: true; readonly refreshToken: string } | { readonly ok: false; readonly error: AuthError };

function acceptChallengeId(body: FactorVerifyFields): string {
  const value = stringField(body, 'challenge_id', 'VerifyFactorParams');
  if (value === '') return '00000000-0000-0000-0000-000000000000';
  if (!isUuid(value)) throw authErrors.badJson(`uuid: incorrect UUID format in string ${JSON.stringify(value)}`);
  return value;
}

interface MfaAttempt {
  readonly userId: string;
  readonly factorId: string;
  readonly factorType: string;
  readonly valid: boolean;
}

const MFA_HOOK_REJECTION = 'Further MFA verification attempts will be rejected.';

/** GoTrue's MFA verification attempt hook: a refusal signs the user out everywhere and answers 403. */
async function mfaHook(deps: AuthDeps, db: Queryable, attempt: MfaAttempt, ip: string | null, now: Date): Promise<AuthError | null> {
  if (!hookEnabled(deps, 'mfa_verification_attempt')) return null;
  const input = { user_id: attempt.userId, factor_id: attempt.factorId, factor_type: attempt.factorType, valid: attempt.valid };
  const decision = attemptDecisionFrom(await runHook(deps, 'mfa_verification_attempt', input, ip));
  if (!decision.reject) return null;
  await revokeSessions(db, attempt.userId, 'global', null, 'logout', now);
  return new AuthError(403, 'mfa_verification_rejected', decision.message === '' ? MFA_HOOK_REJECTION : decision.message);
}

function registerVerify(router: Router, deps: AuthDeps): void {
  router.post(
    '/factors/:factor_id/verify',
    handle(deps, async (req, res) => {
      const { user, session } = await signedInUser(req, deps);
      const target = await ownedFactor(deps.ctx.adminPool, user.id, req.params.factor_id);
      await enforceRateLimit(req, deps, 'mfa_verify');
      const body: FactorVerifyFields = bodyOf(req);
      const challengeId = acceptChallengeId(body);
      const code = stringField(body, 'code', 'VerifyFactorParams');
      if (target.factor_type === 'phone' && !deps.ctx.settings['auth.mfa.phone.enabled']) throw phoneFactorErrors.verifyDisabled();
      const webauthn = target.factor_type === 'webauthn' ? webAuthnVerifyParams(deps, body) : null;
      if (webauthn === null && code === '') throw authErrors.validation('Code needs to be non-empty');
      const now = deps.now();
      const ip = clientIp(req);
      // Refusals that change state (an expired challenge is deleted) commit before they are answered.
      const outcome = await inTransaction(deps.ctx.adminPool, async (db): Promise<VerifyOutcome> => {
        const factor = await ownedFactor(db, user.id, req.params.factor_id, true);
        const challenge = await findChallenge(db, factor.id, challengeId);
        if (challenge === null) return { ok: false, error: mfaError.challengeNotFound() };
        if (challenge.verified_at !== null || challenge.ip_address !== (ip ?? '')) return { ok: false, error: mfaError.ipMismatch() };
        if (now.getTime() > challenge.created_at.getTime() + CHALLENGE_EXPIRY_SECONDS * 1000) {
          await deleteChallenge(db, challenge.id);
          return { ok: false, error: mfaError.challengeExpired(challenge.id) };
        }
        let proof: { readonly step: number } | { readonly credential: WebAuthnFactorCredential } | Record<string, never> | null;
        if (factor.factor_type === 'phone') {
          proof = phoneCodeMatches(challenge.otp_hash, challenge.id, code) ? {} : null;
        } else if (webauthn !== null) {
          // A WebAuthn challenge serves one response, verified or not.
          await deleteChallenge(db, challenge.id);
          const data = challenge.web_authn_session_data;
          const credential = data === null ? null : await verifyFactorResponse(projectRelyingParty(deps), webauthn.type, data.challenge, webauthn.response, factor.web_authn_credential);
          proof = credential === null ? null : { credential };
        } else {
          if (factor.secret_sealed === null) throw authErrors.unexpected();
          const key = base32Decode(openTotpSecret(deps.ctx.jwtSecret, factor.id, factor.secret_sealed));
          const lastStep = factor.last_used_step === null ? null : Number(factor.last_used_step);
          const step = matchTotpStep(key, code, Math.floor(now.getTime() / 1000), lastStep);
          proof = step === null ? null : { step };
        }
        // GoTrue asks the hook on TOTP and phone verifications; its verifyWebAuthnFactor does not.
        const rejection =
          webauthn !== null ? null : await mfaHook(deps, db, { userId: user.id, factorId: factor.id, factorType: factor.factor_type, valid: proof !== null }, ip, now);
        if (rejection !== null) return { ok: false, error: rejection };
        if (proof === null) {
          const failed = factor.factor_type === 'phone' ? phoneFactorErrors.verificationFailed() : webauthn !== null ? mfaError.webAuthnVerificationFailed() : mfaError.verificationFailed();
          return { ok: false, error: failed };
        }
        await writeAudit(db, {
          event: 'verification_attempted',
          userId: user.id,
          ip,
          payload: { factor_id: factor.id, challenge_id: challenge.id, factor_type: factor.factor_type },
          at: now,
        });
        await recordVerification(db, { factor, challengeId: challenge.id, sessionId: session.id, ...proof }, now);
        await revokeAal1Sessions(db, user.id, now);
        return { ok: true, refreshToken: await replaceRefreshToken(db, session, now) };
      });
      if (!outcome.ok) throw outcome.error;
      const [raised, current] = await Promise.all([findLiveSession(deps.ctx.adminPool, session.id), findUserById(deps.ctx.adminPool, user.id)]);
      if (raised === null || current === null) throw authErrors.sessionNotFound(403);
      res.status(200).json(await sessionJson(deps, current, raised, outcome.refreshToken, target.factor_type === 'phone' ? 'mfa/phone' : 'totp'));
    }),
  );
}

function registerUnenroll(router: Router, deps: AuthDeps): void {
  router.delete(
    '/factors/:factor_id',
    handle(deps, async (req, res) => {
      const { user, session } = await signedInUser(req, deps);
      const now = deps.now();
      const factor = await inTransaction(deps.ctx.adminPool, async (db) => {
        const owned = await ownedFactor(db, user.id, req.params.factor_id, true);
        if (owned.status === 'verified' && session.aal !== 'aal2') throw mfaError.unenrollNeedsAal2();
        await deleteFactor(db, owned, now);
        await writeAudit(db, {
          event: 'factor_unenrolled',
          userId: user.id,
          ip: clientIp(req),
          payload: { factor_id: owned.id, factor_status: owned.status, session_id: session.id },
          at: now,
        });
        return owned;
      });
      res.status(200).json({ id: factor.id });
    }),
  );
}

function registerAdminFactors(router: Router, deps: AuthDeps): void {
  const adminTarget = async (req: Request): Promise<{ readonly actor: string; readonly userId: string }> => {
    const { role: actor } = requireAdmin(req, deps);
    const user = await findUserById(deps.ctx.adminPool, String(req.params.id));
    if (user === null) throw authErrors.userNotFound(404);
    return { actor, userId: user.id };
  };

  router.get(
    '/admin/users/:id/factors',
    handle(deps, async (req, res) => {
      const { userId } = await adminTarget(req);
      res.status(200).json((await listFactors(deps.ctx.adminPool, userId)).map(factorJson));
    }),
  );

  router.delete(
    '/admin/users/:id/factors/:factor_id',
    handle(deps, async (req, res) => {
      const { actor, userId } = await adminTarget(req);
      const now = deps.now();
      const factor = await inTransaction(deps.ctx.adminPool, async (db) => {
        const owned = await ownedFactor(db, userId, req.params.factor_id, true);
        await writeAudit(db, { event: 'factor_deleted', userId, ip: clientIp(req), payload: { actor, user_id: userId, factor_id: owned.id }, at: now });
        await deleteFactor(db, owned, now);
        return owned;
      });
      res.status(200).json(factorJson(factor));
    }),
  );

  router.put(
    '/admin/users/:id/factors/:factor_id',
    handle(deps, async (req, res) => {
      const { actor, userId } = await adminTarget(req);
      const body: DeclaredFields<BodyOf<typeof adminEndpoints.updateFactor>> = bodyOf(req);
      const friendlyName = stringField(body, 'friendly_name', 'adminUserUpdateFactorParams');
      const now = deps.now();
      const factor = await inTransaction(deps.ctx.adminPool, async (db) => {
        const owned = await ownedFactor(db, userId, req.params.factor_id, true);
        if (friendlyName === '') return owned;
        const renamed = await renameFactor(db, owned.id, friendlyName, now).catch((error: unknown) => {
          throw (error as { code?: string }).code === '23505' ? mfaError.nameConflict(friendlyName) : error;
        });
        await writeAudit(db, { event: 'factor_updated', userId, ip: clientIp(req), payload: { actor, factor_id: owned.id }, at: now });
        return renamed;
      });
      res.status(200).json(factorJson(factor));
    }),
  );
}

export function registerFactors(router: Router, deps: AuthDeps): void {
  registerEnroll(router, deps);
  registerChallenge(router, deps);
  registerVerify(router, deps);
  registerUnenroll(router, deps);
  registerAdminFactors(router, deps);
}
