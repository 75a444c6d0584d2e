import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneIdempotencyKeys } from '../../../runtime/calls/idempotency.js';
import { publicId } from '../../../runtime/calls/ids.js';
import { callsEnv, eventually, startCallsHarness, type CallsHarness } from '../../helpers/calls/harness.js';

/**
 * Idempotency-Key expiry with an injected clock: the services below read `clock` instead of the
 * wall clock, so the tests step past a window without waiting. The clock starts at the real time
 * (whole seconds) and only moves forward by hours: records written by other test files (24 h
 * windows on the real clock) are never old enough for these services' pruning.
 */
const WINDOW_S = 3600;
const at = (base: Date, seconds: number): Date => new Date(base.getTime() + seconds * 1000);
const startOfSecond = (): Date => new Date(Math.floor(Date.now() / 1000) * 1000);
const submission = (operator = 'op_1') => ({ audio_url: 'http://127.0.0.1:9/call.wav', language: 'en', operator_id: operator });

async function keyRows(h: CallsHarness, tenant: string): Promise<{ idempotency_key: string; call_id: string; created_at: Date; expires_at: Date }[]> {
  const { rows } = await h.platform.pool.query(
    'SELECT idempotency_key, call_id, created_at, expires_at FROM calls_idempotency_keys WHERE tenant_id = $1 ORDER BY idempotency_key',
    [tenant],
  );
  return rows;
}

describe('the idempotency window (CALLS_IDEMPOTENCY_WINDOW_SECONDS=3600)', () => {
  let h: CallsHarness;
  let clock = startOfSecond();

  beforeAll(async () => {
    // No workers: the calls stay queued, which is all these tests need.
    h = await startCallsHarness(callsEnv({ CALLS_CONCURRENCY: '0', CALLS_IDEMPOTENCY_WINDOW_SECONDS: String(WINDOW_S) }), { now: () => clock });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('pruning deletes exactly the records whose window has ended, in batches', async () => {
    const t0 = clock;
    const { key, tenant } = await h.newTenant();
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      expect((await h.request('POST', '/v1/calls/analyze', { key, body: submission(), headers: { 'Idempotency-Key': name } })).status).toBe(202);
    }
    clock = at(t0, 1800);
    expect((await h.request('POST', '/v1/calls/analyze', { key, body: submission(), headers: { 'Idempotency-Key': 'f' } })).status).toBe(202);

    expect(await pruneIdempotencyKeys(h.platform.pool, at(t0, WINDOW_S - 1), 2)).toBe(0);
    expect(await pruneIdempotencyKeys(h.platform.pool, at(t0, WINDOW_S), 2)).toBe(5);
    expect((await keyRows(h, tenant)).map((r) => [r.idempotency_key, r.expires_at])).toEqual([['f', at(t0, 1800 + WINDOW_S)]]);
    const { rows } = await h.platform.pool.query('SELECT count(*)::int AS calls FROM calls WHERE tenant_id = $1', [tenant]);
    expect(rows[0].calls).toBe(6);
  });

  it('a key replays within its window; from the window end on, the same key is a fresh request', async () => {
    const t0 = (clock = at(clock, 2 * WINDOW_S));
    const { key, tenant } = await h.newTenant();
    const headers = { 'Idempotency-Key': 'order-7781' };
    const first = await h.request('POST', '/v1/calls/analyze', { key, body: submission(), headers });
    expect(first.status).toBe(202);
    const firstRows = await keyRows(h, tenant);
    expect(firstRows.map((r) => [r.idempotency_key, publicId('call', r.call_id), r.created_at, r.expires_at])).toEqual([
      ['order-7781', first.body.id, t0, at(t0, WINDOW_S)],
    ]);

    clock = at(t0, WINDOW_S - 0.001);
    const replay = await h.request('POST', '/v1/calls/analyze', { key, body: submission(), headers });
    expect([replay.status, replay.body.id, replay.headers.get('idempotent-replayed')]).toEqual([202, first.body.id, 'true']);
    const reused = await h.request('POST', '/v1/calls/analyze', { key, body: submission('op_2'), headers });
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);

    clock = at(t0, WINDOW_S);
    const fresh = await h.request('POST', '/v1/calls/analyze', { key, body: submission('op_2'), headers });
    expect([fresh.status, fresh.headers.get('idempotent-replayed')]).toEqual([202, null]);
    expect(fresh.body).toMatchObject({ status: 'queued', operator_id: 'op_2' });
    expect(fresh.body.id).not.toBe(first.body.id);
    expect((await keyRows(h, tenant)).map((r) => [publicId('call', r.call_id), r.created_at, r.expires_at])).toEqual([
      [fresh.body.id, at(t0, WINDOW_S), at(t0, 2 * WINDOW_S)],
    ]);
    const again = await h.request('POST', '/v1/calls/analyze', { key, body: submission('op_2'), headers });
    expect([again.status, again.body.id, again.headers.get('idempotent-replayed')]).toEqual([202, fresh.body.id, 'true']);
    // The first call itself is not touched by its key's expiry.
    expect((await h.request('GET', `/v1/calls/${first.body.id}`, { key })).body).toMatchObject({ id: first.body.id, operator_id: 'op_1' });
  });
});

describe('the maintenance sweep (CALLS_MAINTENANCE_SECONDS=1)', () => {
  let h: CallsHarness;
  let clock = startOfSecond();

  beforeAll(async () => {
    h = await startCallsHarness(
      callsEnv({ CALLS_CONCURRENCY: '0', CALLS_IDEMPOTENCY_WINDOW_SECONDS: String(WINDOW_S), CALLS_MAINTENANCE_SECONDS: '1' }),
      { now: () => clock },
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('deletes expired records on its own, so the table stays bounded by the window', async () => {
    const { key, tenant } = await h.newTenant();
    expect((await h.request('POST', '/v1/calls/analyze', { key, body: submission(), headers: { 'Idempotency-Key': 'old' } })).status).toBe(202);
    clock = at(clock, WINDOW_S);
    expect((await h.request('POST', '/v1/calls/analyze', { key, body: submission(), headers: { 'Idempotency-Key': 'new' } })).status).toBe(202);
    const left = await eventually(async () => {
      const rows = await keyRows(h, tenant);
      return rows.length === 1 ? rows : null;
    }, 10_000, 'the sweep to delete the expired key');
    expect(left.map((r) => r.idempotency_key)).toEqual(['new']);
  });
});
