import { createHmac, sign, timingSafeEqual, verify } from 'node:crypto';
import { isVerifiable, type ProjectKeyring, type SigningAlg, type VerificationKey } from './keyring.js';

/**
 * The one JWT module of the runtime: HS256 with the project's secret (API keys, and
 * access tokens of projects without a signing key), ES256/RS256 with the project's
 * signing keys, chosen by `kid`. Hand-rolled on node:crypto (synchronous HMAC and
 * signature checks on KeyObjects parsed once per project load) because the data API
 * verifies a token on every request and jose's async WebCrypto path costs more.
 */

export type ApiKeyRole = 'anon' | 'service_role';

/** Claims every verified project token has; the rest are passed through untouched. */
export interface ProjectClaims {
  readonly role: string;
  readonly exp: number;
  readonly iat?: number;
  readonly sub?: string;
  readonly session_id?: string;
  readonly [claim: string]: unknown;
}

export interface AccessTokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: string;
  readonly exp: number;
  readonly iat: number;
  readonly email: string;
  readonly phone: string;
  readonly app_metadata: Record<string, unknown>;
  readonly user_metadata: Record<string, unknown>;
  readonly role: string;
  readonly aal: string;
  readonly amr: ReadonlyArray<{ readonly method: string; readonly timestamp: number }>;
  readonly session_id: string;
  readonly is_anonymous: boolean;
  /** The third-party OAuth client the token was issued to, and the scopes it was granted (GoTrue names them so). */
  readonly client_id?: string;
  readonly scope?: string;
}

export type JwtErrorCode =
  | 'jwt_malformed'
  | 'jwt_unsupported_alg'
  | 'jwt_unknown_key'
  | 'jwt_bad_signature'
  | 'jwt_expired'
  | 'jwt_not_yet_valid'
  | 'jwt_missing_claim'
  /** A registered claim of the wrong type (`exp`, `nbf`, `iat` not numbers; `aud` not a string or strings). */
  | 'jwt_invalid_claim';

export class JwtError extends Error {
  constructor(
    readonly code: JwtErrorCode,
    message: string,
    /** What PostgREST words its answer by: the segments counted, the claim of the wrong type, the alg refused. */
    readonly detail: { readonly parts?: number; readonly claim?: string; readonly alg?: unknown } = {},
  ) {
    super(message);
    this.name = 'JwtError';
  }
}

/** Leeway for exp/nbf so a few seconds of clock drift between hosts don't reject fresh tokens. */
export const CLOCK_SKEW_SECONDS = 30;
/** Project keys live as long as Supabase's (10 years); rotating the project secret revokes them. */
export const API_KEY_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;

const HEADER_SEGMENT = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** A bare secret: HS256 only (API keys, tests); a keyring adds the project's signing keys. */
export type ProjectKeys = ProjectKeyring | string;

function secretOf(keys: ProjectKeys): string {
  return typeof keys === 'string' ? keys : keys.secret;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function signature(secret: string, signingInput: string): Buffer {
  return createHmac('sha256', secret).update(signingInput).digest();
}

/** Signs an object of claims as a compact HS256 JWT. */
export function signJwt(secret: string, claims: object): string {
  const signingInput = `${HEADER_SEGMENT}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${signature(secret, signingInput).toString('base64url')}`;
}

/** The project's anon or service_role key: `{role, iss:"gantry", ref, iat, exp}`. */
export function signApiKey(
  secret: string,
  role: ApiKeyRole,
  ref: string,
  issuedAt: number = Math.floor(Date.now() / 1000),
): string {
  return signJwt(secret, { role, iss: 'gantry', ref, iat: issuedAt, exp: issuedAt + API_KEY_LIFETIME_SECONDS });
}

/** ECDSA signatures in a JWS are r || s (IEEE P1363), not node's default DER. */
const DSA_ENCODING = 'ieee-p1363';

/** Signs with the project's current signing key (header `kid`), else HS256 with its secret; a custom access token hook's claims as they are. */
export function signAccessToken(keys: ProjectKeys, claims: AccessTokenClaims | Readonly<Record<string, unknown>>): string {
  const signing = typeof keys === 'string' ? null : keys.signing;
  if (signing === null) return signJwt(secretOf(keys), claims);
  const signingInput = `${base64url(JSON.stringify({ alg: signing.alg, kid: signing.kid, typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  const signed = sign('sha256', Buffer.from(signingInput), { key: signing.key, dsaEncoding: DSA_ENCODING });
  return `${signingInput}.${signed.toString('base64url')}`;
}

interface CacheEntry {
  readonly keys: ProjectKeys;
  readonly claims: ProjectClaims;
  /** The asymmetric key that verified the token; its grace period may end while the token is cached. */
  readonly key: VerificationKey | null;
  /** `placements` when it last went to the back of the eviction order. */
  placed: number;
}

/**
 * Bounded: insertion order doubles as eviction order (oldest first). A hit moves its token to the
 * back only once half the cache has been placed behind it: a token in use is never evicted, and the
 * usual hit (every request verifies its apikey and its bearer token) writes nothing to the Map.
 */
const MAX_CACHED_TOKENS = 10_000;
const verified = new Map<string, CacheEntry>();
let placements = 0;

function place(token: string, entry: CacheEntry): void {
  entry.placed = ++placements;
  verified.set(token, entry);
}

function remember(token: string, entry: CacheEntry): void {
  if (verified.size >= MAX_CACHED_TOKENS) {
    const oldest = verified.keys().next();
    if (!oldest.done) verified.delete(oldest.value);
  }
  place(token, entry);
}

function checkTimes(claims: ProjectClaims, nowSeconds: number): void {
  if (nowSeconds > claims.exp + CLOCK_SKEW_SECONDS) throw new JwtError('jwt_expired', 'token has expired');
  const nbf = claims.nbf;
  if (typeof nbf === 'number' && nowSeconds + CLOCK_SKEW_SECONDS < nbf) {
    throw new JwtError('jwt_not_yet_valid', 'token is not valid yet');
  }
}

function decodeSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    throw new JwtError('jwt_malformed', 'token is not a well-formed JWT');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSigningAlg(alg: unknown): alg is SigningAlg {
  return alg === 'ES256' || alg === 'RS256';
}

/** GoTrue's key lookup: an asymmetric token needs a key of that kid and alg that still verifies. */
function asymmetricKey(keys: ProjectKeys, header: Record<string, unknown>, nowSeconds: number): VerificationKey {
  const kid = header.kid;
  const key = typeof keys === 'string' || typeof kid !== 'string' ? undefined : keys.verifying.get(kid);
  if (key === undefined || key.alg !== header.alg || !isVerifiable(key, nowSeconds)) {
    throw new JwtError('jwt_unknown_key', `unrecognized JWT kid ${typeof kid === 'string' ? kid : '<nil>'} for algorithm ${String(header.alg)}`);
  }
  return key;
}

function isNumericDate(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value));
}

/** Registered claims must have their registered types (RFC 7519 §4.1), as PostgREST and golang-jwt require. */
function checkClaimTypes(payload: Record<string, unknown>): void {
  for (const claim of ['exp', 'nbf', 'iat']) {
    if (!isNumericDate(payload[claim])) throw new JwtError('jwt_invalid_claim', `${claim} claim must be a number`, { claim });
  }
  const aud = payload.aud;
  // A null audience is no audience (PostgREST's AudienceJwtSecretSpec, golang-jwt's ClaimStrings).
  if (aud !== undefined && aud !== null && typeof aud !== 'string' && !(Array.isArray(aud) && aud.every((item) => typeof item === 'string'))) {
    throw new JwtError('jwt_invalid_claim', 'aud claim must be a string or an array of strings', { claim: 'aud' });
  }
}

function verifyUncached(token: string, keys: ProjectKeys, nowSeconds: number): CacheEntry {
  const parts = token.split('.');
  if (parts.length !== 3) throw new JwtError('jwt_malformed', 'token contains an invalid number of segments', { parts: parts.length });
  const [headerSegment, payloadSegment, signatureSegment] = parts as [string, string, string];
  const header = decodeSegment(headerSegment);
  if (!isRecord(header)) throw new JwtError('jwt_malformed', 'token header is not an object');
  const signingInput = `${headerSegment}.${payloadSegment}`;
  const given = Buffer.from(signatureSegment, 'base64url');
  let key: VerificationKey | null = null;
  if (header.alg === 'HS256') {
    const expected = signature(secretOf(keys), signingInput);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new JwtError('jwt_bad_signature', 'signature is invalid');
    }
  } else if (isSigningAlg(header.alg)) {
    key = asymmetricKey(keys, header, nowSeconds);
    if (!verify('sha256', Buffer.from(signingInput), { key: key.key, dsaEncoding: DSA_ENCODING }, given)) {
      throw new JwtError('jwt_bad_signature', 'signature is invalid');
    }
  } else {
    throw new JwtError('jwt_unsupported_alg', `signing method ${String(header.alg)} is not allowed`, { alg: header.alg });
  }
  const payload = decodeSegment(payloadSegment);
  if (!isRecord(payload)) throw new JwtError('jwt_malformed', 'token payload is not an object');
  checkClaimTypes(payload);
  if (typeof payload.exp !== 'number') throw new JwtError('jwt_missing_claim', 'token has no exp claim');
  if (typeof payload.role !== 'string' || payload.role === '') {
    throw new JwtError('jwt_missing_claim', 'token has no role claim');
  }
  return { keys, claims: Object.freeze(payload) as ProjectClaims, key, placed: 0 };
}

/**
 * Verifies any token of a project (API key or access token): HS256 with the
 * project secret, ES256/RS256 with the signing key its `kid` names, exp required
 * and enforced. Successful results are cached per token string until exp; a cached
 * token is only accepted for the same keys (a reload after a rotation builds new
 * ones), and while the key that verified it still verifies. Throws JwtError.
 */
export function verifyProjectToken(
  token: string,
  keys: ProjectKeys,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): ProjectClaims {
  const cached = verified.get(token);
  if (cached !== undefined && cached.keys === keys && (cached.key === null || isVerifiable(cached.key, nowSeconds))) {
    try {
      checkTimes(cached.claims, nowSeconds);
    } catch (error) {
      verified.delete(token);
      throw error;
    }
    if (placements - cached.placed > MAX_CACHED_TOKENS / 2) {
      verified.delete(token);
      place(token, cached);
    }
    return cached.claims;
  }
  const entry = verifyUncached(token, keys, nowSeconds);
  checkTimes(entry.claims, nowSeconds);
  remember(token, entry);
  return entry.claims;
}
