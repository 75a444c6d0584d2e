/** E-mail addresses are compared and stored lower-cased, as GoTrue does. */

const MAX_EMAIL_LENGTH = 255;
// Deliberately simple (one @, a dotted domain, no spaces or control characters):
// deliverability is proven by the confirmation mail, not by a regex.
const EMAIL_PATTERN = /^[^\s@"(),:;<>[\\\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** The normalised address, or null when the input is not a plausible address. */
export function normaliseEmail(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const email = raw.trim().toLowerCase();
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH) return null;
  if (/[\u0000-\u001f\u007f]/.test(email)) return null;
  return EMAIL_PATTERN.test(email) ? email : null;
}
