/** GoTrue's e164Format: the number without "+", 2 to 15 digits, no leading zero. */
const E164 = /^[1-9][0-9]{1,14}$/;

/** GoTrue's formatPhoneNumber: drops a leading "+" and every space; numbers are stored so. */
export function formatPhone(raw: string): string {
  return raw.replace(/^\+/, '').replaceAll(' ', '');
}

export function isE164(formatted: string): boolean {
  return E164.test(formatted);
}
