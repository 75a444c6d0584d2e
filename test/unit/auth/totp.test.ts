import { describe, expect, it } from 'vitest';
import {
  base32Decode,
  base32Encode,
  generateTotpSecret,
  hotp,
  matchTotpStep,
  otpauthUri,
  totpCode,
  totpStep,
} from '../../../runtime/auth/credentials/totp.js';

// RFC 6238 appendix B: the SHA1 rows, 8 digits, seed "12345678901234567890".
const RFC6238_SHA1_KEY = Buffer.from('12345678901234567890', 'ascii');
const RFC6238_SHA1_VECTORS: ReadonlyArray<readonly [number, string, string]> = [
  [59, '0000000000000001', '94287082'],
  [1111111109, '00000000023523EC', '07081804'],
  [1111111111, '00000000023523ED', '14050471'],
  [1234567890, '000000000273EF07', '89005924'],
  [2000000000, '0000000003F940AA', '69279037'],
  [20000000000, '0000000027BC86AA', '65353130'],
];

describe('TOTP (RFC 6238, HMAC-SHA1)', () => {
  it.each(RFC6238_SHA1_VECTORS)('at %i s (step %s) the 8-digit code is %s', (seconds, stepHex, code) => {
    expect(totpStep(seconds)).toBe(Number.parseInt(stepHex, 16));
    expect(totpCode(RFC6238_SHA1_KEY, seconds, 8)).toBe(code);
  });

  it('RFC 4226 appendix D: HOTP values for counters 0-9', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, counter) => hotp(RFC6238_SHA1_KEY, counter))).toEqual(expected);
  });

  it('6-digit codes are the last six digits of the 8-digit ones', () => {
    expect(totpCode(RFC6238_SHA1_KEY, 59)).toBe('287082');
    expect(totpCode(RFC6238_SHA1_KEY, 1111111109)).toBe('081804');
  });
});

describe('matchTotpStep', () => {
  const now = 1111111111;
  const step = totpStep(now);
  const codeAt = (offset: number) => hotp(RFC6238_SHA1_KEY, step + offset);

  it('accepts the current step and one either side, and no further', () => {
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(0), now, null)).toBe(step);
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(-1), now, null)).toBe(step - 1);
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(1), now, null)).toBe(step + 1);
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(-2), now, null)).toBeNull();
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(2), now, null)).toBeNull();
  });

  it('refuses the step already used and older ones (no replay)', () => {
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(0), now, step)).toBeNull();
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(-1), now, step)).toBeNull();
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(1), now, step)).toBe(step + 1);
  });

  it('refuses anything but six digits', () => {
    expect(matchTotpStep(RFC6238_SHA1_KEY, ` ${codeAt(0)}`, now, null)).toBeNull();
    expect(matchTotpStep(RFC6238_SHA1_KEY, codeAt(0).slice(1), now, null)).toBeNull();
    expect(matchTotpStep(RFC6238_SHA1_KEY, '', now, null)).toBeNull();
    expect(matchTotpStep(RFC6238_SHA1_KEY, 'abcdef', now, null)).toBeNull();
  });
});

describe('base32 and the key URI', () => {
  it('RFC 4648 test vectors, unpadded', () => {
    const vectors: ReadonlyArray<readonly [string, string]> = [
      ['', ''], ['f', 'MY'], ['fo', 'MZXQ'], ['foo', 'MZXW6'], ['foob', 'MZXW6YQ'], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI'],
    ];
    for (const [plain, encoded] of vectors) {
      expect(base32Encode(Buffer.from(plain))).toBe(encoded);
      expect(base32Decode(encoded).toString()).toBe(plain);
    }
    expect(base32Decode('MZXW6YQ=').toString()).toBe('foob');
    expect(() => base32Decode('MZ1W')).toThrow('Invalid character found: 1');
  });

  it('a new secret is 20 random bytes as 32 base32 characters', () => {
    const secret = generateTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(secret)).toHaveLength(20);
    expect(generateTotpSecret()).not.toBe(secret);
  });

  it('the URI puts issuer:account in the path and sorted parameters in the query, escaped as Go does', () => {
    expect(otpauthUri('localhost:3000', 'ann+mfa@example.com', 'JBSWY3DPEHPK3PXP')).toBe(
      'otpauth://totp/localhost:3000:ann+mfa@example.com?algorithm=SHA1&digits=6&issuer=localhost%3A3000&period=30&secret=JBSWY3DPEHPK3PXP',
    );
    expect(otpauthUri('My App', 'a b?c#', 'ABC')).toBe(
      'otpauth://totp/My%20App:a%20b%3Fc%23?algorithm=SHA1&digits=6&issuer=My+App&period=30&secret=ABC',
    );
  });
});
