import type { Request } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { AuthError, authErrors } from './errors.js';
import { JwtError, verifyProjectToken, type ProjectClaims } from '../../tokens/jwt.js';
import { findLiveSession, type SessionRow } from '../storage/sessions.js';
import type { UserRow } from '../storage/user-json.js';
import { findUserById, isBanned, isUuid } from '../storage/users.js';

function seconds(deps: AuthDeps): number {
  return Math.floor(deps.now().getTime() / 1000);
}

function bearerOf(req: Request): string | null {
  const header = req.get('authorization');
  if (header === undefined) return null;
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  return match ? (match[1] as string) : '';
}

function apiKeyOf(req: Request): string | null {
  const header = req.get('apikey');
  if (header !== undefined) return header.trim();
  const query = req.query.apikey;
  return typeof query === 'string' ? query : null;
}

/** GoTrue's message for a token it cannot verify, its reason worded as golang-jwt words it. */
function unverifiable(error: JwtError): AuthError {
  const reasons: Record<JwtError['code'], string> = {
    jwt_malformed: `token is malformed: ${error.message}`,
    jwt_unsupported_alg: `token signature is invalid: ${error.message}`,
    jwt_unknown_key: `token is unverifiable: error while executing keyfunc: ${error.message}`,
    jwt_bad_signature: 'token signature is invalid: signature is invalid',
    jwt_expired: 'token has invalid claims: token is expired',
    jwt_not_yet_valid: 'token has invalid claims: token is not valid yet',
    jwt_missing_claim: `token has invalid claims: ${error.message}`,
    jwt_invalid_claim: `token has invalid claims: ${error.message}`,
  };
  return authErrors.badJwt(`invalid JWT: unable to parse or verify signature, ${reasons[error.code]}`);
}

function verifyOrThrow(deps: AuthDeps, token: string): ProjectClaims {
  try {
    return verifyProjectToken(token, deps.ctx.keyring, seconds(deps));
  } catch (error) {
    if (error instanceof JwtError) throw unverifiable(error);
    throw error;
  }
}

/** GOTRUE_JWT_ADMIN_ROLES' default. */
const ADMIN_ROLES: ReadonlySet<string> = new Set(['service_role', 'supabase_admin']);

function verify(deps: AuthDeps, token: string): ProjectClaims | null {
  try {
    return verifyProjectToken(token, deps.ctx.keyring, seconds(deps));
  } catch (error) {
    if (error instanceof JwtError) return null;
    throw error;
  }
}

/**
 * Public endpoints need a key of this project: the `apikey` header (or query
 * parameter), else the Bearer token. 401 when missing or not this project's.
 */
export function requireApiKey(req: Request, deps: AuthDeps): ProjectClaims {
  const apiKey = apiKeyOf(req);
  const key = apiKey ?? bearerOf(req);
  if (key === null || key === '') throw authErrors.noApiKey();
  const claims = verify(deps, key);
  if (claims === null) throw authErrors.invalidApiKey();
  return claims;
}

/** An `apikey` that is present must be valid even where it is not required (mail links, Bearer-authorised calls). */
export function checkPresentApiKey(req: Request, deps: AuthDeps): void {
  const apiKey = apiKeyOf(req);
  if (apiKey !== null && verify(deps, apiKey) === null) throw authErrors.invalidApiKey();
}

export interface AuthenticatedUser {
  readonly claims: ProjectClaims;
  readonly user: UserRow;
  /** Null for a token without a session_id claim (one a backend signed itself), which GoTrue accepts too. */
  readonly session: SessionRow | null;
}

/** GoTrue reads an empty or nil-UUID session_id claim as no session. */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * The access token of a user request: the Bearer token, else (service document 5.1: either header may carry
 * an access token) an `apikey` that is a user's token rather than one of the project's API keys.
 */
function accessTokenOf(req: Request, deps: AuthDeps): string {
  const bearer = bearerOf(req);
  if (bearer !== null && bearer !== '') return bearer;
  const apiKey = apiKeyOf(req);
  if (apiKey !== null && apiKey !== '' && verify(deps, apiKey)?.session_id !== undefined) return apiKey;
  throw authErrors.noAuthorization();
}

/** A signed-in user's access token whose user and session still exist and who is not banned. */
export async function requireUser(req: Request, deps: AuthDeps): Promise<AuthenticatedUser> {
  checkPresentApiKey(req, deps);
  const token = accessTokenOf(req, deps);
  const claims = verifyOrThrow(deps, token);
  if (typeof claims.sub !== 'string' || claims.sub === '') throw authErrors.badJwt('invalid claim: missing sub claim');
  if (!isUuid(claims.sub)) throw authErrors.badJwt('invalid claim: sub claim must be a UUID', 400);
  const user = await findUserById(deps.ctx.adminPool, claims.sub);
  if (user === null) throw authErrors.userNotFound(403);
  const sessionId = claims.session_id;
  let session: SessionRow | null = null;
  if (sessionId !== undefined && sessionId !== null && sessionId !== '' && sessionId !== NIL_UUID) {
    if (!isUuid(sessionId)) throw authErrors.badJwt('invalid claim: session_id claim must be a UUID');
    session = await findLiveSession(deps.ctx.adminPool, sessionId);
    if (session === null || session.user_id !== user.id) throw authErrors.sessionNotFound(403);
  }
  if (isBanned(user, deps.now())) throw authErrors.userBanned(403);
  return { claims, user, session };
}

export type SessionUser = AuthenticatedUser & { readonly session: SessionRow };

/** A signed-in user whose token names a live session: MFA acts on the session (its aal). */
export async function requireSession(req: Request, deps: AuthDeps): Promise<SessionUser> {
  const authenticated = await requireUser(req, deps);
  const { session } = authenticated;
  if (session === null) throw authErrors.badJwt('invalid claim: missing session_id claim');
  return { ...authenticated, session };
}

/** Admin endpoints: a token of an admin role (GoTrue's default list), as Bearer or (without Bearer) as apikey. */
export function requireAdmin(req: Request, deps: AuthDeps): ProjectClaims {
  checkPresentApiKey(req, deps);
  const token = bearerOf(req) || apiKeyOf(req);
  if (token === null || token === '') throw authErrors.noAuthorization();
  const claims = verifyOrThrow(deps, token);
  if (!ADMIN_ROLES.has(claims.role)) throw authErrors.notAdmin();
  return claims;
}

export function clientIp(req: Request): string | null {
  return req.ip ?? req.socket.remoteAddress ?? null;
}
