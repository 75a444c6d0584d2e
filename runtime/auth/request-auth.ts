import type { Request } from 'express';
import type { AuthDeps } from './auth-deps.js';
import { authErrors } from './errors.js';
import { JwtError, verifyProjectToken, type ProjectClaims } from './jwt.js';
import { findLiveSession, type SessionRow } from './sessions.js';
import type { UserRow } from './user-json.js';
import { findUserById, isBanned, isUuid } from './users.js';

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

function verify(deps: AuthDeps, token: string): ProjectClaims | null {
  try {
    return verifyProjectToken(token, deps.ctx.jwtSecret, seconds(deps));
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
  readonly session: SessionRow;
}

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
  let claims: ProjectClaims;
  try {
    claims = verifyProjectToken(token, deps.ctx.jwtSecret, seconds(deps));
  } catch (error) {
    if (error instanceof JwtError) throw authErrors.badJwt(error.message);
    throw error;
  }
  if (!isUuid(claims.sub)) throw authErrors.badJwt('missing or invalid sub claim');
  if (!isUuid(claims.session_id)) throw authErrors.badJwt('missing or invalid session_id claim');
  const user = await findUserById(deps.ctx.adminPool, claims.sub);
  if (user === null) throw authErrors.userNotFound(403);
  const session = await findLiveSession(deps.ctx.adminPool, claims.session_id);
  if (session === null || session.user_id !== user.id) throw authErrors.sessionNotFound(403);
  if (isBanned(user, deps.now())) throw authErrors.userBanned(403);
  return { claims, user, session };
}

/** Admin endpoints: a service_role token, as Bearer or (without Bearer) as apikey. */
export function requireAdmin(req: Request, deps: AuthDeps): ProjectClaims {
  checkPresentApiKey(req, deps);
  const token = bearerOf(req) || apiKeyOf(req);
  if (token === null || token === '') throw authErrors.noAuthorization();
  const claims = verify(deps, token);
  if (claims === null) throw authErrors.badJwt('unable to parse or verify signature, or token expired');
  if (claims.role !== 'service_role') throw authErrors.notAdmin();
  return claims;
}

export function clientIp(req: Request): string | null {
  return req.ip ?? req.socket.remoteAddress ?? null;
}
