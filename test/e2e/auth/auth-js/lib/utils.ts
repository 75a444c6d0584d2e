import { randomUUID } from 'node:crypto';

/** auth-js's mockUserCredentials without faker: a fresh address and password per call. */
export function mockUserCredentials(): { email: string; phone: string; password: string } {
  const id = randomUUID();
  return { email: `passkey-${id}@example.com`, phone: '', password: `pw-${id}` };
}
