import pg from 'pg';
import { inject } from 'vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { readCallsSettings } from '../../../runtime/calls/settings.js';
import { CallsQueue } from '../../../runtime/calls/queue.js';
import { createLogger } from '../../../runtime/logger.js';

const schema = `pgboss_race_${process.pid}`;
const url = (() => {
  const u = new URL(inject('databaseUrl'));
  u.pathname = '/postgres';
  return u.toString();
})();

afterAll(async () => {
  const client = new pg.Client(url);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

describe('CallsQueue.start', () => {
  it('lets several hosts start at once on a fresh queue schema', async () => {
    const settings = { ...readCallsSettings({ CALLS_QUEUE_SCHEMA: schema }), concurrency: 0 };
    const queues = await Promise.all(Array.from({ length: 10 }, () => CallsQueue.start(url, settings, createLogger('silent'))));
    expect(queues).toHaveLength(10);
    await Promise.all(queues.map((q) => q.stop()));
  });
});
