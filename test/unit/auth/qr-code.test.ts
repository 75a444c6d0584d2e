import { describe, expect, it } from 'vitest';
import { encodeQr, qrSvg, type QrMatrix } from '../../../runtime/auth/credentials/qr-code.js';
import { scanQrSvg } from '../../helpers/qr-svg.js';

const URI = 'otpauth://totp/localhost:3000:someone@example.com?algorithm=SHA1&digits=6&issuer=localhost%3A3000&period=30&secret=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The error-correction level written in the format information (ISO/IEC 18004 §7.9), from its first copy. */
function levelOf(modules: QrMatrix): string {
  const at = (x: number, y: number): number => ((modules[y] as readonly boolean[])[x] ? 1 : 0);
  const bits = [0, 1, 2, 3, 4, 5, 7, 8].map((y) => at(8, y)).concat([7, 5, 4, 3, 2, 1, 0].map((x) => at(x, 8)));
  // Read from bit 0 (next to the top-left finder's corner) to bit 14, then unmasked.
  const format = bits.reduce((value, bit, i) => value | (bit << i), 0) ^ 0b101010000010010;
  return ['M', 'L', 'H', 'Q'][format >>> 13]!;
}

describe('QR code of the TOTP key URI', () => {
  it.each([
    ['the key URI', URI],
    ['a UTF-8 issuer and account', 'otpauth://totp/Caf%C3%A9:ren%C3%A9@example.com?issuer=Café&secret=JBSWY3DPEHPK3PXP'],
    ['a short text', 'x'],
  ])('the SVG of %s scans back to the text', (_name, text) => {
    expect(scanQrSvg(qrSvg(encodeQr(text, 'H')))).toBe(text);
  });

  it('writes the requested error-correction level (H, as Supabase Auth uses)', () => {
    for (const level of ['L', 'M', 'Q', 'H'] as const) expect(levelOf(encodeQr(URI, level))).toBe(level);
  });

  it('the two copies of the format information agree', () => {
    const modules = encodeQr('format', 'Q');
    const size = modules.length;
    const at = (x: number, y: number) => ((modules[y] as boolean[])[x] ? 1 : 0);
    const first = [0, 1, 2, 3, 4, 5, 7, 8].map((y) => at(8, y)).concat([7, 5, 4, 3, 2, 1, 0].map((x) => at(x, 8)));
    const second = Array.from({ length: 8 }, (_, i) => at(size - 1 - i, 8)).concat(Array.from({ length: 7 }, (_, i) => at(8, size - 7 + i)));
    expect(first).toEqual(second);
  });

  it('refuses a text no version holds', () => {
    expect(() => encodeQr('x'.repeat(3000), 'H')).toThrow();
  });

  it('the SVG has the quiet zone and no "#" or "%" (auth-js puts it in a data URI unescaped)', () => {
    const modules = encodeQr('svg', 'H');
    const svg = qrSvg(modules);
    const side = modules.length + 8;
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain(`viewBox="0 0 ${side} ${side}"`);
    expect(svg).toContain(`width="${side * 3}"`);
    expect(svg).not.toMatch(/[#%]/);
    const darkCount = modules.flat().filter(Boolean).length;
    expect(svg.match(/h1v1h-1z/g)).toHaveLength(darkCount);
    expect(svg).toContain('M4 4h1v1h-1z');
  });
});
