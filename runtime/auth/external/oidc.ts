import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { GuardOptions } from '../../outbound/guarded-request.js';
import { providerFailure, providerJson } from './provider-http.js';

/** What OpenID Connect discovery (`/.well-known/openid-configuration`) says about an issuer. */
export interface OidcMetadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly jwks_uri: string;
  readonly userinfo_endpoint?: string;
}

interface Discovered {
  readonly metadata: OidcMetadata;
  readonly keys: ReturnType<typeof createLocalJWKSet>;
  readonly until: number;
}

/** As GoTrue's OIDC provider cache: discovery and keys are kept for a while, not fetched per sign-in. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Discovery documents and key sets by issuer, for one project router. */
export class OidcDirectory {
  private readonly cache = new Map<string, Discovered>();

  constructor(private readonly guard: GuardOptions) {}

  private async discover(issuer: string): Promise<Discovered> {
    const cached = this.cache.get(issuer);
    if (cached !== undefined && cached.until > Date.now()) return cached;
    const doc = await providerJson(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, { method: 'GET' }, this.guard);
    const metadata = {
      issuer: str(doc.issuer),
      authorization_endpoint: str(doc.authorization_endpoint),
      token_endpoint: str(doc.token_endpoint),
      jwks_uri: str(doc.jwks_uri),
      userinfo_endpoint: str(doc.userinfo_endpoint),
    };
    // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
    if (metadata.issuer !== issuer) throw providerFailure(`issuer did not match the issuer returned by provider, expected "${issuer}" got "${String(metadata.issuer)}"`);
    if (metadata.authorization_endpoint === undefined || metadata.token_endpoint === undefined || metadata.jwks_uri === undefined) {
      throw providerFailure('provider discovery document lacks an endpoint');
    }
    const jwks = await providerJson(metadata.jwks_uri, { method: 'GET' }, this.guard);
    const found: Discovered = {
      metadata: metadata as OidcMetadata,
      keys: createLocalJWKSet(jwks as unknown as JSONWebKeySet),
      until: Date.now() + DISCOVERY_TTL_MS,
    };
    this.cache.set(issuer, found);
    return found;
  }

  async metadata(issuer: string): Promise<OidcMetadata> {
    return (await this.discover(issuer)).metadata;
  }

  /** verifyIdToken against the issuer's published keys. */
  async verify(issuer: string, idToken: string): Promise<JWTPayload> {
    return verifyIdToken((await this.discover(issuer)).keys, issuer, idToken);
  }
}

/**
 * OpenID Connect Core §2 requires `exp` and `iat` in every ID token; jose checks a claim's
 * time only when the claim is there. GoTrue's verifier (go-oidc) reads a missing `exp` as the
 * zero time, so such a token is expired; a missing `iat` it lets through, Core refuses.
 */
const REQUIRED_TIME_CLAIMS = ['exp', 'iat'];

/**
 * The ID token's claims once its signature checks out against `keys`, its `iss` is the issuer,
 * it carries `exp` and `iat` as numbers, has not expired and is not early (`nbf`). Audience, `sub`
 * and nonce are the caller's (their errors differ between the grant and the redirect).
 * Throws jose's errors.
 */
export async function verifyIdToken(keys: JWTVerifyGetKey, issuer: string, idToken: string, now?: Date): Promise<JWTPayload> {
  const { payload } = await jwtVerify(idToken, keys, { issuer, requiredClaims: REQUIRED_TIME_CLAIMS, ...(now === undefined ? {} : { currentDate: now }) });
  return payload;
}
