import { randomInt, randomUUID } from 'node:crypto';

/** auth-js's mockUserCredentials without faker: a fresh address, an 11-digit number starting with 1 (as its own) and a password per call. */
export function mockUserCredentials(): { email: string; phone: string; password: string } {
  const id = randomUUID();
  const phone = `1${Array.from({ length: 10 }, () => randomInt(0, 10)).join('')}`;
  return { email: `passkey-${id}@example.com`, phone, password: `pw-${id}` };
}

/** auth-js's mockOAuthClientParams without faker: a fresh client name and redirect URIs per call. */
export function mockOAuthClientParams(): {
  client_name: string;
  redirect_uris: string[];
  grant_types: ('authorization_code' | 'refresh_token')[];
  response_types: 'code'[];
} {
  const id = randomUUID().slice(0, 8);
  return {
    client_name: `Test OAuth Client ${id}`,
    redirect_uris: [`https://app-${id}.example.org/callback`, `https://example.com/callback/${id}`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

/** auth-js's mockOAuthUpdateParams without faker. */
export function mockOAuthUpdateParams(): { client_name: string; logo_uri: string } {
  const id = randomUUID().slice(0, 8);
  return { client_name: `Updated OAuth Client ${id}`, logo_uri: `https://images.example.org/${id}.png` };
}

/** auth-js's mockVerificationOTP: six digits. */
export function mockVerificationOTP(): string {
  return Math.floor(100000 + Math.random() * 900000).toString();
}
