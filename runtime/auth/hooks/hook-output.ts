import { AuthError } from '../http/errors.js';

/**
 * What a hook answered, judged as GoTrue judges it: `{error: {http_code, message}}` with a
 * message is a failure answered with that status (500 without one), and a custom access
 * token's claims must fit GoTrue's MinimumViableTokenSchema.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** GoTrue answers an error without a code of its own as `unexpected_failure` (500) or `unknown`. */
export function hookError(status: number, message: string): AuthError {
  return new AuthError(status, status === 500 ? 'unexpected_failure' : 'unknown', message);
}

/** The hook's own error (hookserrors.Check): an `error` object with a non-empty message. */
export function hookReportedError(output: unknown): AuthError | null {
  if (!isRecord(output) || !isRecord(output.error)) return null;
  const { message, http_code: code } = output.error;
  if (typeof message !== 'string' || message === '') return null;
  const status = typeof code === 'number' && Number.isInteger(code) && code >= 100 && code <= 599 ? code : 500;
  return hookError(status, message);
}

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'array' | 'object';

function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  return typeof value === 'string' ? 'string' : 'object';
}

const REQUIRED = ['aud', 'exp', 'iat', 'sub', 'email', 'phone', 'role', 'aal', 'session_id', 'is_anonymous'] as const;

/** MinimumViableTokenSchema's property types, in its order. */
const TYPES: ReadonlyArray<readonly [string, readonly JsonType[]]> = [
  ['aud', ['string', 'array']],
  ['exp', ['integer']],
  ['jti', ['string']],
  ['iat', ['integer']],
  ['iss', ['string']],
  ['nbf', ['integer']],
  ['sub', ['string']],
  ['email', ['string']],
  ['phone', ['string']],
  ['app_metadata', ['object']],
  ['user_metadata', ['object']],
  ['role', ['string']],
  ['aal', ['string']],
  ['amr', ['array']],
  ['session_id', ['string']],
  ['client_id', ['string']],
];

/** gojsonschema's wording: `Expected: integer`, `Expected: [string,array]`; an integer is a number too. */
function typeProblem(field: string, value: unknown, allowed: readonly JsonType[]): string | null {
  const given = jsonType(value);
  if (allowed.includes(given) || (given === 'integer' && allowed.includes('number'))) return null;
  const expected = allowed.length === 1 ? allowed[0] : `[${allowed.join(',')}]`;
  return `${field}: Invalid type. Expected: ${expected}, given: ${given}`;
}

function schemaProblems(claims: unknown): string[] {
  if (!isRecord(claims)) return [typeProblem('(root)', claims, ['object']) as string];
  const problems: string[] = REQUIRED.filter((name) => !Object.hasOwn(claims, name)).map((name) => `(root): ${name} is required`);
  for (const [name, allowed] of TYPES) {
    if (!Object.hasOwn(claims, name)) continue;
    const problem = typeProblem(name, claims[name], allowed);
    if (problem !== null) problems.push(problem);
  }
  const amr = claims.amr;
  if (Array.isArray(amr)) {
    amr.forEach((entry, index) => {
      const type = jsonType(entry);
      if (type !== 'string' && type !== 'object') problems.push(`amr.${index}: Must validate at least one schema (anyOf)`);
    });
  }
  return problems;
}

/**
 * The claims a custom access token hook answered, as GoTrue's CustomAccessTokenOutput and
 * validateTokenClaims take them; a violation is a 500 with GoTrue's message.
 */
export function customClaimsFrom(output: unknown): Record<string, unknown> {
  if (isRecord(output) && !Object.hasOwn(output, 'claims')) throw hookError(500, 'output claims field is missing');
  const claims = isRecord(output) ? output.claims : null;
  if (claims !== null && claims !== undefined && !isRecord(claims)) throw hookError(500, 'Error unmarshaling JSON output.');
  const problems = schemaProblems(claims ?? null);
  if (problems.length > 0) {
    throw hookError(500, `output claims do not conform to the expected schema: \n${problems.map((p) => `- ${p}\n`).join('')}`);
  }
  return claims as Record<string, unknown>;
}

/** A verification-attempt hook's verdict (password or MFA). */
export interface AttemptDecision {
  readonly reject: boolean;
  readonly message: string;
  readonly shouldLogoutUser: boolean;
}

export function attemptDecisionFrom(output: unknown): AttemptDecision {
  const record = isRecord(output) ? output : {};
  return {
    reject: record.decision === 'reject',
    message: typeof record.message === 'string' ? record.message : '',
    shouldLogoutUser: record.should_logout_user === true,
  };
}
