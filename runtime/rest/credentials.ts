import { parseCookie } from 'cookie';
import { CLOCK_SKEW_SECONDS, JwtError, verifyProjectToken, type ProjectClaims, type ProjectKeys } from '../tokens/jwt.js';
import type { RequestIdentity } from '../db/rls-transaction.js';
import { ApiError } from './errors.js';
import type { RequestHeaders } from './parse/headers.js';
import { firstHeader } from './parse/headers.js';
import { quoteIdent } from '../db/identifiers.js';
import { appSettingGucs } from '../platform/settings.js';

const BEARER = /^bearer\s+(\S+)\s*$/i;
const EMPTY_BEARER = /^bearer\s*$/i;

function unauthorized(code: string, message: string, description: string, details: string | null = null): ApiError {
  return new ApiError(401, code, message, details, null, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"`,
  });
}

/**
 * The request's verified claims. `apikey` and `Authorization: Bearer` may each carry
 * a token of the project; the bearer token decides the role, and a given apikey must
 * be valid too. Neither: 401.
 */
/** PostgREST's names for the registered claims' types. */
const CLAIM_TYPE: Readonly<Record<string, string>> = {
  exp: "The JWT 'exp' claim must be a number",
  nbf: "The JWT 'nbf' claim must be a number",
  iat: "The JWT 'iat' claim must be a number",
  aud: "The JWT 'aud' claim must be a string or an array of strings",
};

/** A token that does not verify, answered in PostgREST's words (PGRST301 for the token, PGRST303 for its claims). */
function rejected(error: JwtError): ApiError {
  switch (error.code) {
    case 'jwt_expired':
      return unauthorized('PGRST303', 'JWT expired', 'JWT expired');
    case 'jwt_not_yet_valid':
      return unauthorized('PGRST303', 'JWT not yet valid', 'JWT not yet valid');
    case 'jwt_invalid_claim': {
      const message = CLAIM_TYPE[error.detail.claim ?? ''] ?? 'Parsing claims failed';
      return unauthorized('PGRST303', message, message);
    }
    // PostgREST 13's words for a kid its key set lacks (a rotated-out key after its grace period), or a signature no key verifies.
    case 'jwt_unknown_key':
      return unauthorized('PGRST301', 'No suitable key or wrong key type', 'No suitable key or wrong key type');
    case 'jwt_bad_signature':
      return unauthorized('PGRST301', 'No suitable key or wrong key type', 'No suitable key or wrong key type', 'None of the keys was able to decode the JWT');
    case 'jwt_unsupported_alg': {
      const why = error.detail.alg === 'none' ? "JWT is unsecured but expected 'alg' was not 'none'" : error.message;
      return unauthorized('PGRST301', 'Wrong or unsupported encoding algorithm', 'Wrong or unsupported encoding algorithm', why);
    }
    case 'jwt_malformed':
      if (error.detail.parts !== undefined) {
        const message = `Expected 3 parts in JWT; got ${error.detail.parts}`;
        return unauthorized('PGRST301', message, message);
      }
      return unauthorized('PGRST301', 'JWT cryptographic operation failed', 'JWT cryptographic operation failed');
    case 'jwt_missing_claim':
      return unauthorized('PGRST301', `Invalid JWT: ${error.message}`, error.message);
  }
}

/**
 * The request's verified claims. `apikey` and `Authorization: Bearer` may each carry
 * a token of the project; the bearer token decides the role, and a given apikey must
 * be valid too. Neither: 401.
 */
export function authenticate(headers: RequestHeaders, keys: ProjectKeys, apikeyParam: string | null, nowSeconds = Math.floor(Date.now() / 1000)): ProjectClaims {
  const authorization = firstHeader(headers, 'authorization');
  if (authorization !== undefined && EMPTY_BEARER.test(authorization)) {
    throw unauthorized('PGRST301', 'Empty JWT is sent in Authorization header', 'Empty JWT is sent in Authorization header');
  }
  const bearer = authorization === undefined ? null : BEARER.exec(authorization)?.[1] ?? null;
  if (authorization !== undefined && bearer === null) {
    throw unauthorized('PGRST301', 'Authorization header is not of the form "Bearer <token>"', 'malformed authorization header');
  }
  const apikey = firstHeader(headers, 'apikey') ?? apikeyParam;
  if (bearer === null && !apikey) {
    throw new ApiError(401, 'PGRST302', 'No API key found in request', null, 'Send the project key in the apikey header or as Authorization: Bearer <token>.');
  }
  let claims: ProjectClaims | null = null;
  for (const token of [apikey, bearer]) {
    if (!token) continue;
    try {
      claims = verifyProjectToken(token, keys, nowSeconds);
    } catch (error) {
      if (!(error instanceof JwtError)) throw error;
      throw rejected(error);
    }
    // PostgREST refuses a token issued in the future (beyond the clock skew it allows); GoTrue does not look.
    if (typeof claims.iat === 'number' && claims.iat > nowSeconds + CLOCK_SKEW_SECONDS) {
      throw unauthorized('PGRST303', 'JWT issued at future', 'JWT issued at future');
    }
  }
  // The role claim is checked where PostgREST checks it: switching to it in the request's
  // transaction. The authenticator may switch to anon, authenticated, service_role and any
  // role granted to it; PostgreSQL refuses the rest (42501 → 403, a role that does not exist
  // 22023 → 401), before the request's statement runs.
  return claims!;
}

/**
 * Request headers as PostgREST puts them in `request.headers`: lower-case names, first value. Node gives every
 * header but `set-cookie` as one string, so the headers are usually their own JSON as they are (no copy per request).
 */
function headersJson(headers: RequestHeaders): string {
  for (const name in headers) {
    if (typeof headers[name] !== 'string') return JSON.stringify(joinedHeaders(headers));
  }
  return JSON.stringify(headers);
}

function joinedHeaders(headers: RequestHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

/** Verified claims are cached objects (see verifyProjectToken): their JSON text is too. */
const claimsText = new WeakMap<ProjectClaims, string>();

function claimsJson(claims: ProjectClaims): string {
  let text = claimsText.get(claims);
  if (text === undefined) {
    text = JSON.stringify(claims);
    claimsText.set(claims, text);
  }
  return text;
}

/** Request cookies as PostgREST puts them in `request.cookies`: a JSON object of names to decoded values. */
function cookiesJson(headers: RequestHeaders): string {
  const header = firstHeader(headers, 'cookie');
  // A null-prototype object: a cookie named __proto__ is a cookie like any other.
  return header ? JSON.stringify(parseCookie(header)) : '{}';
}

/** Where the request runs: its schema first on `search_path`, then the project's extra schemas; `Prefer: timezone`. */
export interface RequestScope {
  readonly schema: string;
  readonly extraSearchPath: readonly string[];
  readonly timezone: string | null;
  /** `api.pre_request`: `schema.name`, a bare name, or '' for none. */
  readonly preRequest: string;
  /** `app.settings`: names after `app.settings.` to values. */
  readonly appSettings: Readonly<Record<string, string>>;
}

/** Who a request runs as in its transaction; `path` as `request.path` shows it (`/todos`, `/rpc/fn` as PostgREST; `/functions/v1/publish`). */
export function requestIdentity(
  req: { readonly method?: string; readonly headers: RequestHeaders },
  claims: ProjectClaims,
  path: string,
  scope: RequestScope,
): RequestIdentity {
  return {
    role: claims.role,
    claims: claimsJson(claims),
    method: req.method ?? 'GET',
    path,
    headers: headersJson(req.headers),
    cookies: cookiesJson(req.headers),
    searchPath: searchPathOf(scope.schema, scope.extraSearchPath),
    timezone: scope.timezone,
    preRequest: scope.preRequest === '' ? null : scope.preRequest.split('.').map(quoteIdent).join('.'),
    appSettings: appSettingsOf(scope.appSettings),
  };
}

/*
 * What follows depends only on the project's settings (objects replaced, never changed, when the settings
 * change) and the request's schema: worked out once, not in every request. (The pre-request name is quoted
 * per request: only projects that set one pay for it, and it is two short strings.)
 */

const searchPaths = new WeakMap<readonly string[], Map<string, string>>();

/** `search_path`: the request's schema, then the project's extra schemas, quoted. */
function searchPathOf(schema: string, extra: readonly string[]): string {
  let bySchema = searchPaths.get(extra);
  if (bySchema === undefined) {
    bySchema = new Map();
    searchPaths.set(extra, bySchema);
  }
  let text = bySchema.get(schema);
  if (text === undefined) {
    text = [schema, ...extra].map(quoteIdent).join(', ');
    bySchema.set(schema, text);
  }
  return text;
}

const appSettingLists = new WeakMap<Readonly<Record<string, string>>, RequestIdentity['appSettings']>();

function appSettingsOf(settings: Readonly<Record<string, string>>): RequestIdentity['appSettings'] {
  let gucs = appSettingLists.get(settings);
  if (gucs === undefined) {
    gucs = appSettingGucs(settings);
    appSettingLists.set(settings, gucs);
  }
  return gucs;
}
