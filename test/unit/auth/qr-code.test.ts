import { describe, expect, it } from 'vitest';
import { encodeQr, qrSvg, reedSolomonDivisor, reedSolomonRemainder } from '../../../runtime/auth/qr-code.js';

const FINDER = ['1111111', '1000001', '1011101', '1011101', '1011101', '1000001', '1111111'];

function bitsOf(modules: readonly (readonly boolean[])[], x: number, y: number, width: number, height: number): string[] {
  return modules.slice(y, y + height).map((row) => row.slice(x, x + width).map((dark) => (dark ? '1' : '0')).join(''));
}

describe('QR code', () => {
  it('Reed-Solomon: the standard\'s 1-M "HELLO WORLD" codewords give its 10 error-correction codewords', () => {
    const data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17];
    expect(reedSolomonRemainder(data, reedSolomonDivisor(10))).toEqual([196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
  });

  it('picks the smallest version for the text and level (byte mode)', () => {
    expect(encodeQr('x'.repeat(7), 'H')).toHaveLength(21);
    expect(encodeQr('x'.repeat(8), 'H')).toHaveLength(25);
    expect(encodeQr('x'.repeat(17), 'L')).toHaveLength(21);
    // A 151-byte TOTP key URI at level H (Supabase Auth's level): version 11 holds 137 bytes, version 12 holds 155.
    const uri = 'otpauth://totp/localhost:3000:someone@example.com?algorithm=SHA1&digits=6&issuer=localhost%3A3000&period=30&secret=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    expect(encodeQr(uri, 'H')).toHaveLength(4 * 12 + 17);
    expect(() => encodeQr('x'.repeat(3000), 'H')).toThrow(RangeError);
  });

  it('has the finder patterns, timing patterns and the dark module where the standard puts them', () => {
    const modules = encodeQr('otpauth://totp/x', 'M');
    const size = modules.length;
    expect(bitsOf(modules, 0, 0, 7, 7)).toEqual(FINDER);
    expect(bitsOf(modules, size - 7, 0, 7, 7)).toEqual(FINDER);
    expect(bitsOf(modules, 0, size - 7, 7, 7)).toEqual(FINDER);
    expect(bitsOf(modules, 8, 6, size - 16, 1)[0]).toBe('10101'.padEnd(size - 16, '01').slice(0, size - 16));
    expect(modules[size - 8]?.[8]).toBe(true);
  });

  it('the two copies of the format information agree', () => {
    const modules = encodeQr('format', 'Q');
    const size = modules.length;
    const at = (x: number, y: number) => ((modules[y] as boolean[])[x] ? 1 : 0);
    const first = [0, 1, 2, 3, 4, 5, 7, 8].map((y) => at(8, y)).concat([7, 5, 4, 3, 2, 1, 0].map((x) => at(x, 8)));
    const second = Array.from({ length: 8 }, (_, i) => at(size - 1 - i, 8)).concat(Array.from({ length: 7 }, (_, i) => at(8, size - 7 + i)));
    expect(first).toEqual(second);
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
