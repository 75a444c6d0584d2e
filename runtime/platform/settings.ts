import type { ProjectSettings } from '../host/project-context.js';

export class SettingsError extends Error {
  readonly code = 'invalid_setting';
}

type Parser = (raw: string) => boolean | number;

const parseBool: Parser = (raw) => {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new SettingsError(`expected true or false, got "${raw}"`);
};

const parseSeconds: Parser = (raw) => {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw new SettingsError(`expected a whole number of seconds, got "${raw}"`);
  return n;
};

const MAX_REQUESTS_PER_WINDOW = 1_000_000;

const parseRequestLimit: Parser = (raw) => {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_REQUESTS_PER_WINDOW) {
    throw new SettingsError(`expected a whole number of requests per 5 minutes from 1 to ${MAX_REQUESTS_PER_WINDOW}, got "${raw}"`);
  }
  return n;
};

/** Every per-project setting, its parser and its default (rate limits: GoTrue's defaults, per client IP and 5 minutes). */
const known: { readonly [K in keyof ProjectSettings]: { parse: Parser; fallback: ProjectSettings[K] } } = {
  'auth.autoconfirm': { parse: parseBool, fallback: false },
  'auth.refresh_reuse_interval': { parse: parseSeconds, fallback: 0 },
  'auth.rate_limit.token_refresh': { parse: parseRequestLimit, fallback: 150 },
  'auth.rate_limit.verify': { parse: parseRequestLimit, fallback: 30 },
  'auth.rate_limit.otp': { parse: parseRequestLimit, fallback: 30 },
};

export const settingNames = Object.keys(known).sort() as (keyof ProjectSettings)[];

function isKnown(key: string): key is keyof ProjectSettings {
  return Object.hasOwn(known, key);
}

/** Parses `KEY=VALUE` from the CLI into a typed setting. */
export function parseSetting(assignment: string): { key: keyof ProjectSettings; value: boolean | number } {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new SettingsError(`expected KEY=VALUE, got "${assignment}"`);
  const key = assignment.slice(0, eq);
  if (!isKnown(key)) throw new SettingsError(`unknown setting "${key}" (known: ${settingNames.join(', ')})`);
  try {
    return { key, value: known[key].parse(assignment.slice(eq + 1)) };
  } catch (error) {
    throw new SettingsError(`${key}: ${(error as Error).message}`);
  }
}

/** Stored JSON -> settings with defaults filled in; unknown stored keys are ignored. */
export function resolveSettings(stored: Readonly<Record<string, unknown>>): ProjectSettings {
  const pick = <K extends keyof ProjectSettings>(key: K): ProjectSettings[K] => {
    const value = stored[key];
    return typeof value === typeof known[key].fallback ? (value as ProjectSettings[K]) : known[key].fallback;
  };
  return {
    'auth.autoconfirm': pick('auth.autoconfirm'),
    'auth.refresh_reuse_interval': pick('auth.refresh_reuse_interval'),
    'auth.rate_limit.token_refresh': pick('auth.rate_limit.token_refresh'),
    'auth.rate_limit.verify': pick('auth.rate_limit.verify'),
    'auth.rate_limit.otp': pick('auth.rate_limit.otp'),
  };
}
