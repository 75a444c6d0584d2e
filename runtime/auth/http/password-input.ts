import { authErrors } from './errors.js';
import { MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH, passwordProblem } from '../credentials/passwords.js';

/** A new password from a request body, or the GoTrue error for it. */
export function acceptNewPassword(value: unknown, missingMessage: string): string {
  if (typeof value !== 'string' || value === '') throw authErrors.validation(missingMessage);
  const problem = passwordProblem(value);
  if (problem === 'too_long') throw authErrors.validation(`Password cannot be longer than ${MAX_PASSWORD_BYTES} characters`);
  if (problem === 'too_short') {
    throw authErrors.weakPassword(`Password should be at least ${MIN_PASSWORD_LENGTH} characters.`, ['length']);
  }
  return value;
}
