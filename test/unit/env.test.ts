import { describe, expect, it } from 'vitest';
import { envFlag, envList, envNumber, envStrictFlag } from '../../runtime/env.js';

const fail = (message: string): Error => new RangeError(message);

describe('environment readers', () => {
  it('reads numbers: unset or empty is the fallback, a bad value is refused by the caller\'s error', () => {
    expect(envNumber({}, 'N', 120, 1, fail)).toBe(120);
    expect(envNumber({ N: '' }, 'N', 120, 1, fail)).toBe(120);
    expect(envNumber({ N: '30' }, 'N', 120, 1, fail)).toBe(30);
    expect(envNumber({ N: '0.5' }, 'N', 2, 0.5, fail, false)).toBe(0.5);
    expect(() => envNumber({ N: '0.5' }, 'N', 2, 0, fail)).toThrow(new RangeError('N must be an integer >= 0, got "0.5"'));
    expect(() => envNumber({ N: 'abc' }, 'N', 120, 1, fail, false)).toThrow(new RangeError('N must be a number >= 1, got "abc"'));
    expect(() => envNumber({ N: '0' }, 'N', 120, 1, fail)).toThrow(RangeError);
  });

  it('reads flags, lists', () => {
    expect([envFlag({ F: 'TRUE' }, 'F'), envFlag({ F: 'yes' }, 'F'), envFlag({}, 'F')]).toEqual([true, false, false]);
    expect([envStrictFlag({}, 'F', true, fail), envStrictFlag({ F: ' False ' }, 'F', true, fail)]).toEqual([true, false]);
    expect(() => envStrictFlag({ F: 'yes' }, 'F', true, fail)).toThrow(new RangeError('F must be true or false, got "yes"'));
    expect(envList({ L: ' a, ,b ' }, 'L')).toEqual(['a', 'b']);
    expect(envList({}, 'L')).toEqual([]);
  });
});
