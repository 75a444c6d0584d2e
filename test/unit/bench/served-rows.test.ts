import { describe, expect, it } from 'vitest';
import { entryKeys, sameRows } from '../../../bench/served-rows.js';

describe('entryKeys', () => {
  it('keys inserted rows by owner and title, leaving out the new id and time', () => {
    const api = [{ id: 102, owner: 'u7', title: 'bench', created_at: '2026-11-27T04:50:08+00:00' }];
    const standIn = [{ id: 240, owner: 'u7', title: 'bench', created_at: '2026-11-27T04:51:00+00:00' }];
    expect(entryKeys(api)).toEqual(['u7|bench']);
    expect(sameRows(entryKeys(api)!, entryKeys(standIn))).toBe(true);
  });

  it('tells a row inserted for another owner apart', () => {
    expect(sameRows(['u7|bench'], entryKeys([{ id: 1, owner: 'u8', title: 'bench' }]))).toBe(false);
  });

  it('answers null for an answer that is not rows', () => {
    expect(entryKeys({ message: 'invalid token' })).toBeNull();
    expect(entryKeys([1, 2])).toBeNull();
  });
});
