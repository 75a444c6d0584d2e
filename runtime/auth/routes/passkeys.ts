import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Request, Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AuthError, authErrors } from '../http/errors.js';
import { listFactors } from '../storage/factors.js';
import type { PasskeyRenameFields, PasskeyVerifyFields } from './mfa-endpoints.js';
import { bodyOf, enforceRateLimit, handle } from '../http/handler.js';
import {
  consumeCeremonyChallenge,
  countPasskeys,
  deletePasskey,
  findPasskeyByCredentialId,
  insertCeremonyChallenge,
  insertPasskey,
  listPasskeys,
  MAX_FRIENDLY_NAME_LENGTH,
  MAX_PASSKEYS_PER_USER,
  passkeyJson,
  recordPasskeyUse,
  renamePasskey,
  type CeremonyKind,
  type ChallengeRow,
} from '../storage/passkeys.js';
import { clientIp, requireAdmin, requireApiKey, requireSession, type SessionUser } from '../http/request-auth.js';
import { openSession } from '../storage/sessions.js';
import { sessionJson } from '../http/session-response.js';
import type { UserRow } from '../storage/user-json.js';
import { findUserById, isBanned, isUuid, updateUser } from '../storage/users.js';
import { projectRelyingParty } from '../../settings/webauthn-rp.js';

/**
 * Supabase Auth's passkeys (`auth.passkey.enabled`): registration by a signed-in user,
 * discoverable sign-in that opens a session, the user's and the admin's list and delete.
 * Attestation and assertion are checked by @simplewebauthn/server against the project's
 * relying party; each challenge serves one verify within five minutes, and an assertion
 * must move the credential's signature counter forward.
 */

const passkeyError = {
  tooMany: () => new AuthError(422, 'too_many_passkeys', 'Maximum number of passkeys reached'),
  exists: () => new AuthError(422, 'webauthn_credential_exists', 'This credential is already registered'),
  challengeNotFound: () => new AuthError(400, 'webauthn_challenge_not_found', 'Challenge not found or already used'),
  challengeExpired: () => new AuthError(400, 'webauthn_challenge_expired', 'Challenge has expired'),
  invalidResponse: () => new AuthError(400, 'webauthn_verification_failed', 'Invalid credential response'),
  verificationFailed: () => new AuthError(400, 'webauthn_verification_failed', 'Credential verification failed'),
  needsAal2: () => new AuthError(403, 'insufficient_aal', 'AAL2 session is required to manage passkeys when MFA is enabled'),
  notFound: () => new AuthError(404, 'validation_failed', 'Passkey not found'),
  emailNotConfirmed: () => new AuthError(403, 'email_not_confirmed', 'Email not confirmed'),
  anonymous: () => new AuthError(403, 'no_authorization', 'Anonymous user not allowed to perform these actions'),
} as const;

/** GoTrue names a new passkey after its authenticator model when it knows the AAGUID; Gantry keeps no such list. */
const DEFAULT_FRIENDLY_NAME = 'Passkey';

interface VerifyBody {
  readonly challengeId: string;
  readonly credential: Record<string, unknown>;
}

function verifyBody(req: Request): VerifyBody {
  const body: PasskeyVerifyFields = bodyOf(req);
  if (typeof body.challenge_id !== 'string' || body.challenge_id === '') throw authErrors.validation('challenge_id is required');
  if (body.credential === undefined || body.credential === null) throw authErrors.validation('credential is required');
  if (!isUuid(body.challenge_id)) throw authErrors.validation('challenge_id must be a valid UUID');
  if (typeof body.credential !== 'object' || Array.isArray(body.credential)) throw passkeyError.invalidResponse();
  return { challengeId: body.challenge_id, credential: body.credential as Record<string, unknown> };
}

/** The challenge, taken so it cannot serve again; refused when unknown, used, another user's or expired. */
async function takeChallenge(deps: AuthDeps, id: string, kind: CeremonyKind, userId: string | null): Promise<ChallengeRow> {
  const challenge = await consumeCeremonyChallenge(deps.ctx.adminPool, id, kind, userId);
  if (challenge === null) throw passkeyError.challengeNotFound();
  if (challenge.expires_at.getTime() <= deps.now().getTime()) throw passkeyError.challengeExpired();
  return challenge;
}

/** As GoTrue: once the user has a verified MFA factor, only an aal2 session changes their passkeys. */
async function requireManagingSession(req: Request, deps: AuthDeps): Promise<SessionUser> {
  return managingSession(deps, await requireSession(req, deps));
}

/** Registration also refuses anonymous users, as GoTrue's requireNotAnonymous does before the aal check. */
async function requireRegisteringSession(req: Request, deps: AuthDeps): Promise<SessionUser> {
  const authenticated = await requireSession(req, deps);
  if (authenticated.claims.is_anonymous === true) throw passkeyError.anonymous();
  return managingSession(deps, authenticated);
}

async function managingSession(deps: AuthDeps, authenticated: SessionUser): Promise<SessionUser> {
  const verified = (await listFactors(deps.ctx.adminPool, authenticated.user.id)).some((f) => f.status === 'verified');
  if (verified && authenticated.session.aal !== 'aal2') throw passkeyError.needsAal2();
  return authenticated;
}

function userHandle(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));
}

function userIdOfHandle(handle: unknown): string | null {
  if (typeof handle !== 'string') return null;
  const hex = Buffer.from(handle, 'base64url').toString('hex');
  if (hex.length !== 32) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function displayNameOf(user: UserRow): string {
  const name = user.raw_user_meta_data.name;
  return typeof name === 'string' && name !== '' ? name : (user.email ?? '');
}

function expiresAtSeconds(challenge: ChallengeRow): number {
  return Math.floor(challenge.expires_at.getTime() / 1000);
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

export function registerPasskeys(router: Router, deps: AuthDeps): void {
  registerPasskeyAdmin(router, deps);
  // Switched off, /passkeys answers passkey_disabled from the unsupported routes.
  if (!deps.ctx.settings['auth.passkey.enabled']) return;
  const rp = projectRelyingParty(deps);

  router.post(
    '/passkeys/registration/options',
    handle(deps, async (req, res) => {
      const { user } = await requireRegisteringSession(req, deps);
      const existing = await listPasskeys(deps.ctx.adminPool, user.id);
      if (existing.length >= MAX_PASSKEYS_PER_USER) throw passkeyError.tooMany();
      const options = await generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userID: userHandle(user.id),
        userName: user.email ?? '',
        userDisplayName: displayNameOf(user),
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credential_id.toString('base64url') })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
        supportedAlgorithmIDs: [-7, -257],
      });
      const challenge = await insertCeremonyChallenge(deps.ctx.adminPool, 'registration', user.id, { challenge: options.challenge }, deps.now());
      res.status(200).json({ challenge_id: challenge.id, options, expires_at: expiresAtSeconds(challenge) });
    }),
  );

  router.post(
    '/passkeys/registration/verify',
    handle(deps, async (req, res) => {
      const { user } = await requireRegisteringSession(req, deps);
      const body = verifyBody(req);
      const challenge = await takeChallenge(deps, body.challengeId, 'registration', user.id);
      let info;
      try {
        const verification = await verifyRegistrationResponse({
          response: body.credential as unknown as RegistrationResponseJSON,
          expectedChallenge: challenge.session_data.challenge,
          expectedOrigin: [...rp.origins],
          expectedRPID: rp.id,
          requireUserVerification: false,
        });
        info = verification.verified ? verification.registrationInfo : undefined;
      } catch {
        throw passkeyError.verificationFailed();
      }
      if (info === undefined) throw passkeyError.verificationFailed();
      const now = deps.now();
      const registration = info;
      const created = await inTransaction(deps.ctx.adminPool, async (db) => {
        await db.query('SELECT 1 FROM auth.users WHERE id = $1 FOR UPDATE', [user.id]);
        if ((await countPasskeys(db, user.id)) >= MAX_PASSKEYS_PER_USER) throw passkeyError.tooMany();
        try {
          const row = await insertPasskey(db, {
            userId: user.id,
            credentialId: Buffer.from(registration.credential.id, 'base64url'),
            publicKey: Buffer.from(registration.credential.publicKey),
            signCount: registration.credential.counter,
            transports: registration.credential.transports ?? [],
            attestationType: registration.fmt,
            aaguid: registration.aaguid,
            backupEligible: registration.credentialDeviceType === 'multiDevice',
            backedUp: registration.credentialBackedUp,
            friendlyName: DEFAULT_FRIENDLY_NAME,
          }, now);
          await writeAudit(db, { event: 'passkey_created', userId: user.id, ip: clientIp(req), payload: { passkey_id: row.id }, at: now });
          return row;
        } catch (error) {
          if (isUniqueViolation(error)) throw passkeyError.exists();
          throw error;
        }
      });
      res.status(200).json({ id: created.id, friendly_name: created.friendly_name, created_at: created.created_at.toISOString() });
    }),
  );

  router.post(
    '/passkeys/authentication/options',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      // Anyone may ask, and each answer stores a challenge: GoTrue limits this route alone among /passkeys.
      await enforceRateLimit(req, deps, 'passkey');
      // Discoverable sign-in: no user is known yet, so no credential is named.
      const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'preferred' });
      const challenge = await insertCeremonyChallenge(deps.ctx.adminPool, 'authentication', null, { challenge: options.challenge }, deps.now());
      res.status(200).json({ challenge_id: challenge.id, options, expires_at: expiresAtSeconds(challenge) });
    }),
  );

  router.post(
    '/passkeys/authentication/verify',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      const body = verifyBody(req);
      const challenge = await takeChallenge(deps, body.challengeId, 'authentication', null);
      const response = body.credential as unknown as AuthenticationResponseJSON;
      if (typeof response.id !== 'string' || typeof response.response !== 'object' || response.response === null) {
        throw passkeyError.invalidResponse();
      }
      const passkey = await findPasskeyByCredentialId(deps.ctx.adminPool, Buffer.from(response.id, 'base64url'));
      // The user handle must name the passkey's owner, as go-webauthn's discoverable login checks.
      if (passkey === null || userIdOfHandle(response.response.userHandle) !== passkey.user_id) throw passkeyError.verificationFailed();
      let newCounter: number;
      try {
        const verification = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge.session_data.challenge,
          expectedOrigin: [...rp.origins],
          expectedRPID: rp.id,
          credential: { id: response.id, publicKey: new Uint8Array(passkey.public_key), counter: Number(passkey.sign_count) },
          requireUserVerification: false,
        });
        if (!verification.verified) throw passkeyError.verificationFailed();
        newCounter = verification.authenticationInfo.newCounter;
      } catch {
        throw passkeyError.verificationFailed();
      }
      const user = await findUserById(deps.ctx.adminPool, passkey.user_id);
      if (user === null) throw passkeyError.verificationFailed();
      const now = deps.now();
      if (user.email !== null && user.email_confirmed_at === null) throw passkeyError.emailNotConfirmed();
      if (isBanned(user, now)) throw authErrors.userBanned(403);
      const ip = clientIp(req);
      const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
        if (!(await recordPasskeyUse(db, passkey, newCounter, now))) throw passkeyError.verificationFailed();
        const signedIn = (await updateUser(db, user.id, { last_sign_in_at: now }, now)) ?? user;
        const opened = await openSession(db, user.id, 'passkey', now);
        await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: 'passkey', passkey_id: passkey.id, session_id: opened.session.id }, at: now });
        return { user: signedIn, ...opened };
      });
      res.status(200).json(await sessionJson(deps, issued.user, issued.session, issued.refreshToken));
    }),
  );

  router.get(
    '/passkeys',
    handle(deps, async (req, res) => {
      const { user } = await requireSession(req, deps);
      res.status(200).json((await listPasskeys(deps.ctx.adminPool, user.id)).map(passkeyJson));
    }),
  );

  router.patch(
    '/passkeys/:passkey_id',
    handle(deps, async (req, res) => {
      const { user } = await requireManagingSession(req, deps);
      const id = String(req.params.passkey_id);
      if (!isUuid(id)) throw passkeyError.notFound();
      const { friendly_name: name }: PasskeyRenameFields = bodyOf(req);
      if (typeof name !== 'string' || name.trim() === '') throw authErrors.validation('friendly_name is required');
      if (name.length > MAX_FRIENDLY_NAME_LENGTH) throw authErrors.validation(`friendly_name must be ${MAX_FRIENDLY_NAME_LENGTH} characters or less`);
      const now = deps.now();
      const renamed = await inTransaction(deps.ctx.adminPool, async (db) => {
        const row = await renamePasskey(db, user.id, id, name, now);
        if (row === null) throw passkeyError.notFound();
        await writeAudit(db, { event: 'passkey_updated', userId: user.id, ip: clientIp(req), payload: { passkey_id: id }, at: now });
        return row;
      });
      res.status(200).json(passkeyJson(renamed));
    }),
  );

  router.delete(
    '/passkeys/:passkey_id',
    handle(deps, async (req, res) => {
      const { user } = await requireManagingSession(req, deps);
      await removePasskey(deps, req, user.id, String(req.params.passkey_id), {});
      res.status(204).end();
    }),
  );
}

/** The admin's list and delete of a user's passkeys, there whether or not passkey sign-in is on, as in GoTrue. */
function registerPasskeyAdmin(router: Router, deps: AuthDeps): void {
  router.get(
    '/admin/users/:id/passkeys',
    handle(deps, async (req, res) => {
      requireAdmin(req, deps);
      const user = await adminTarget(deps, String(req.params.id));
      res.status(200).json((await listPasskeys(deps.ctx.adminPool, user.id)).map(passkeyJson));
    }),
  );

  router.delete(
    '/admin/users/:id/passkeys/:passkey_id',
    handle(deps, async (req, res) => {
      const { role: actor } = requireAdmin(req, deps);
      const user = await adminTarget(deps, String(req.params.id));
      await removePasskey(deps, req, user.id, String(req.params.passkey_id), { actor });
      res.status(204).end();
    }),
  );
}

async function adminTarget(deps: AuthDeps, id: string): Promise<UserRow> {
  const user = isUuid(id) ? await findUserById(deps.ctx.adminPool, id) : null;
  if (user === null) throw authErrors.userNotFound(404);
  return user;
}

async function removePasskey(deps: AuthDeps, req: Request, ownerId: string, id: string, audit: Record<string, unknown>): Promise<void> {
  if (!isUuid(id)) throw passkeyError.notFound();
  const now = deps.now();
  await inTransaction(deps.ctx.adminPool, async (db) => {
    if (!(await deletePasskey(db, ownerId, id))) throw passkeyError.notFound();
    await writeAudit(db, { event: 'passkey_deleted', userId: ownerId, ip: clientIp(req), payload: { passkey_id: id, ...audit }, at: now });
  });
}
