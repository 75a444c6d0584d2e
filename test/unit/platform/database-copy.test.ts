import { describe, expect, it } from 'vitest';
import { tableDifference } from '../../../runtime/platform/database-copy.js';

describe('tableDifference', () => {
  const items = { name: 'public.items', columns: ['id', 'note'] };
  it('is null for the same tables and columns', () => {
    expect(tableDifference([items], [{ ...items }])).toBeNull();
  });
  it('names the first table missing, differing or extra', () => {
    expect(tableDifference([items], [])).toBe('table public.items is missing');
    expect(tableDifference([items], [{ name: 'public.items', columns: ['id'] }])).toBe('table public.items has columns (id), the source (id, note)');
    expect(tableDifference([], [items])).toBe('table public.items is not in the source');
  });
});
