import { randomBytes, randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type pg from 'pg';

/** Everything a credential may do; an API key may do all of it, a token what its `scope` says. */
export const ALL_SCOPES = ['calls:read', 'calls:write', 'webhooks:manage', 'attendance:write'] as const;
export type Scope = (typeof ALL_SCOPES)[number];

const ISSUER = 'gantry-calls';
const AUDIENCE = 'gantry-calls-api';
const SECRET_NAME = 'calls_token_secret';

/** The HS256 key of access tokens: one cluster secret, created by whichever process needs it first. */
export async function loadTokenKey(pool: pg.Pool): Promise<Uint8Array> {
  await pool.query('INSERT INTO cluster_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [SECRET_NAME, randomBytes(32).toString('base64url')]);
  const { rows } = await pool.query<{ value: string }>('SELECT value FROM cluster_secrets WHERE name = $1', [SECRET_NAME]);
  return Buffer.from(rows[0]!.value, 'base64url');
}

export interface TokenClaims {
  readonly keyId: string;
  readonly tenantId: string;
  readonly scopes: readonly Scope[];
}

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** An RFC 9068-style access token scoped to one tenant; `sub` is the API key (OAuth client) that asked. */
export async function issueAccessToken(key: Uint8Array, claims: TokenClaims, ttlSeconds: number): Promise<string> {
  return new SignJWT({ tid: claims.tenantId, client_id: claims.keyId, scope: claims.scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.keyId)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key);
}

export type TokenFailure = 'token_expired' | 'invalid_token';

export type VerifiedToken = { readonly ok: true; readonly claims: TokenClaims } | { readonly ok: false; readonly reason: TokenFailure; readonly tenantId?: string; readonly keyId?: string };

/**
 * Checks signature, issuer, audience, type and expiry. An expired token whose signature is good
 * still names its tenant, so the denial can be reported to that tenant.
 */
export async function verifyAccessToken(key: Uint8Array, token: string): Promise<VerifiedToken> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE, typ: 'at+jwt' });
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(isScope) : [];
    if (typeof payload.tid !== 'string' || typeof payload.sub !== 'string') return { ok: false, reason: 'invalid_token' };
    return { ok: true, claims: { keyId: payload.sub, tenantId: payload.tid, scopes } };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) {
      const { tid, sub } = error.payload;
      return { ok: false, reason: 'token_expired', tenantId: typeof tid === 'string' ? tid : undefined, keyId: typeof sub === 'string' ? sub : undefined };
    }
    return { ok: false, reason: 'invalid_token' };
  }
}
