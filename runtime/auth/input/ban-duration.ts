/** GoTrue's `ban_duration`: a Go duration string ("24h", "876000h", "1h30m"), or "none" to lift a ban. */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;

/** Milliseconds of the duration (0 = lift the ban), or null when the string is not a duration. */
export function parseBanDuration(value: string): number | null {
  if (value === 'none' || value === '0') return 0;
  if (!DURATION.test(value)) return null;
  let total = 0;
  for (const match of value.matchAll(PART)) total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  return total;
}

/** `banned: true` in the service document: blocked for 100 years. */
export const HUNDRED_YEARS_MS = 876_000 * 3_600_000;
