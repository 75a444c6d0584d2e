import { createPrivateKey, createPublicKey, type JsonWebKeyInput, type KeyObject, type webcrypto } from 'node:crypto';

/** WebCrypto's JWK: the one name for it every @types/node a team may have declares (node:crypto's own went in 22). */
type JsonWebKey = webcrypto.JsonWebKey;

/** Algorithms of a project's asymmetric signing keys (Supabase offers ES256, the default, and RS256). */
export type SigningAlg = 'ES256' | 'RS256';

/** What a project signs access tokens with: HS256 is its jwt_secret (the service document's default), else its current key. */
export type AccessTokenAlg = 'HS256' | SigningAlg;

export function isAccessTokenAlg(value: unknown): value is AccessTokenAlg {
  return value === 'HS256' || value === 'ES256' || value === 'RS256';
}

export type SigningKeyStatus = 'current' | 'previous';

/** A public key as the JWKS publishes it (GoTrue's shape: `use: sig`, `key_ops: [verify]`). */
export interface PublicJwk {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly kty: string;
  readonly use: 'sig';
  readonly key_ops: readonly ['verify'];
  readonly [member: string]: unknown;
}

/** A signing key as the platform registry holds it. */
export interface StoredSigningKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly privateJwk: JsonWebKey;
  readonly publicJwk: PublicJwk;
  readonly status: SigningKeyStatus;
  /** When a previous key stops verifying; null for the current key. */
  readonly expiresAt: Date | null;
}

export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly key: KeyObject;
}

export interface VerificationKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly key: KeyObject;
  readonly jwk: PublicJwk;
  /** Seconds since the epoch after which tokens of this key are refused; null: no end. */
  readonly verifiableUntil: number | null;
}

/**
 * What one project signs and verifies tokens with. Built once per project load, so the
 * parsed KeyObjects are reused by every request (the data API verifies per request).
 */
export interface ProjectKeyring {
  /** HS256: the API keys, and access tokens of a project that signs with its secret. */
  readonly secret: string;
  /** The current asymmetric key when the project signs with it; null: access tokens are HS256 with the secret. */
  readonly signing: SigningKey | null;
  readonly verifying: ReadonlyMap<string, VerificationKey>;
}

/**
 * `alg` is the project's `auth.signing_alg`: with HS256 its asymmetric keys (if any) only
 * verify, so tokens they signed before a switch stay valid and a switch back reuses them.
 */
/** A JWK as node:crypto's key functions take it, whichever of the two JWK types a team's @types/node gives them. */
function jwkInput(key: JsonWebKey | PublicJwk): JsonWebKeyInput {
  return { key, format: 'jwk' } as JsonWebKeyInput;
}

export function buildKeyring(secret: string, stored: readonly StoredSigningKey[], alg: AccessTokenAlg): ProjectKeyring {
  let signing: SigningKey | null = null;
  const verifying = new Map<string, VerificationKey>();
  for (const key of stored) {
    if (key.status === 'current' && alg !== 'HS256') signing = { kid: key.kid, alg: key.alg, key: createPrivateKey(jwkInput(key.privateJwk)) };
    verifying.set(key.kid, {
      kid: key.kid,
      alg: key.alg,
      key: createPublicKey(jwkInput(key.publicJwk)),
      jwk: key.publicJwk,
      verifiableUntil: key.expiresAt === null ? null : Math.floor(key.expiresAt.getTime() / 1000),
    });
  }
  return { secret, signing, verifying };
}

export function isVerifiable(key: VerificationKey, nowSeconds: number): boolean {
  return key.verifiableUntil === null || nowSeconds <= key.verifiableUntil;
}

/** GoTrue's `/.well-known/jwks.json`: the public keys that verify now; the HS256 secret never appears. */
export function jwksOf(keyring: ProjectKeyring, nowSeconds: number): { readonly keys: readonly PublicJwk[] } {
  return { keys: [...keyring.verifying.values()].filter((key) => isVerifiable(key, nowSeconds)).map((key) => key.jwk) };
}
