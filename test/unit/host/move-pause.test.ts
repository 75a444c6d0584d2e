import { describe, expect, it } from 'vitest';
import { runsWhilePaused } from '../../../runtime/host/move-pause.js';

describe('runsWhilePaused', () => {
  it('lets reads of the data API and preflights through, and pauses writes and auth', () => {
    expect(runsWhilePaused('GET', '/rest/v1/items')).toBe(true);
    expect(runsWhilePaused('HEAD', '/rest/v1/items')).toBe(true);
    expect(runsWhilePaused('OPTIONS', '/auth/v1/token')).toBe(true);
    expect(runsWhilePaused('POST', '/rest/v1/items')).toBe(false);
    expect(runsWhilePaused('PATCH', '/rest/v1/items')).toBe(false);
    expect(runsWhilePaused('GET', '/auth/v1/verify')).toBe(false);
  });
});
