/**
 * Typed readers of environment variables, the one style of config.ts and the call-analysis settings:
 * unset or empty takes the fallback, and a value that is there but wrong is refused with the error
 * `fail` makes of the message (each caller's own coded error), never silently taken as the default.
 */
type Env = NodeJS.ProcessEnv;
export type EnvFailure = (message: string) => Error;

/** `true` in any case is on; anything else, unset included, is off. */
export function envFlag(env: Env, name: string): boolean {
  return (env[name] ?? '').toLowerCase() === 'true';
}

/** `true` or `false` (any case, trimmed); unset or empty takes the fallback, anything else is a mistake worth stopping for. */
export function envStrictFlag(env: Env, name: string, fallback: boolean, fail: EnvFailure): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw fail(`${name} must be true or false, got "${env[name]}"`);
}

/** A number of at least `min` (a whole one unless `integer` is false). */
export function envNumber(env: Env, name: string, fallback: number, min: number, fail: EnvFailure, integer = true): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw fail(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got "${raw}"`);
  }
  return value;
}

/** Comma-separated items, each trimmed, empty ones dropped. */
export function envList(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}
