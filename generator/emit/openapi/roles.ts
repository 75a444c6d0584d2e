/** The roles a request can run as, in the order the document lists them. */
export type ApiRole = 'anon' | 'authenticated' | 'service_role';

export const API_ROLES: readonly ApiRole[] = ['anon', 'authenticated', 'service_role'];

/** Which key or token makes a request run as each role. */
export const ROLE_CREDENTIALS: Readonly<Record<ApiRole, string>> = {
  anon: 'the anon key alone',
  authenticated: "a signed-in user's access token (`Authorization: Bearer`, with the anon key as `apikey`)",
  service_role: 'the service key (bypasses row-level security; keep it on servers)',
};

export function rolesSentence(roles: readonly ApiRole[]): string {
  return `Allowed for roles: ${roles.map((role) => `\`${role}\``).join(', ')}.`;
}
