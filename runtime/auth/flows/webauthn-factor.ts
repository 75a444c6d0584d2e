import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { WebAuthnFactorCredential } from '../storage/factors.js';
import type { RelyingParty } from '../../settings/webauthn-rp.js';

/**
 * The WebAuthn ceremonies of an MFA factor: an unverified factor registers a credential
 * (`create`), a verified one asserts with it (`request`). Options go out as GoTrue sends
 * them (`credential_options.publicKey`); responses are checked by @simplewebauthn/server.
 */

export type CeremonyType = 'create' | 'request';

export interface FactorCeremony {
  readonly type: CeremonyType;
  readonly challenge: string;
  readonly publicKey: unknown;
}

export async function factorCeremony(
  rp: RelyingParty,
  user: { readonly id: string; readonly email: string },
  credential: WebAuthnFactorCredential | null,
  exclude: readonly string[],
): Promise<FactorCeremony> {
  if (credential === null) {
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userID: new Uint8Array(Buffer.from(user.id.replace(/-/g, ''), 'hex')),
      userName: user.email,
      attestationType: 'none',
      excludeCredentials: exclude.map((id) => ({ id })),
      authenticatorSelection: { userVerification: 'preferred' },
      supportedAlgorithmIDs: [-7, -257],
    });
    return { type: 'create', challenge: options.challenge, publicKey: options };
  }
  const options = await generateAuthenticationOptions({ rpID: rp.id, allowCredentials: [{ id: credential.id }], userVerification: 'preferred' });
  return { type: 'request', challenge: options.challenge, publicKey: options };
}

/**
 * The credential after a valid response to the challenge: the one registered (`create`), or the
 * factor's own with its new signature counter (`request`). Null when the response does not verify,
 * including an assertion that does not move the counter forward.
 */
export async function verifyFactorResponse(
  rp: RelyingParty,
  type: CeremonyType,
  challenge: string,
  response: Record<string, unknown>,
  credential: WebAuthnFactorCredential | null,
): Promise<WebAuthnFactorCredential | null> {
  const expected = { expectedChallenge: challenge, expectedOrigin: [...rp.origins], expectedRPID: rp.id, requireUserVerification: false };
  try {
    if (type === 'create') {
      if (credential !== null) return null;
      const verification = await verifyRegistrationResponse({ response: response as unknown as RegistrationResponseJSON, ...expected });
      const info = verification.verified ? verification.registrationInfo : undefined;
      if (info === undefined) return null;
      return { id: info.credential.id, public_key: Buffer.from(info.credential.publicKey).toString('base64url'), sign_count: info.credential.counter };
    }
    if (credential === null || response.id !== credential.id) return null;
    const verification = await verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      ...expected,
      credential: { id: credential.id, publicKey: new Uint8Array(Buffer.from(credential.public_key, 'base64url')), counter: credential.sign_count },
    });
    return verification.verified ? { ...credential, sign_count: verification.authenticationInfo.newCounter } : null;
  } catch {
    return null;
  }
}
