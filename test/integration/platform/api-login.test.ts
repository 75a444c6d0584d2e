import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../runtime/config.js';
import { acquireCluster } from '../../../runtime/platform/cluster.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { testConfig } from '../../helpers/platform.js';

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const passwordOf = (client: pg.Client, role: string): Promise<string | null> =>
  client.query<{ p: string | null }>('SELECT rolpassword AS p FROM pg_authid WHERE rolname = $1', [role]).then((r) => r.rows[0]?.p ?? null);

describe('the data API login role', () => {
  it('keeps the password it set once: opening the platform again changes no credentials', async () => {
    const first = await Platform.open(await testConfig());
    try {
      const before = await withClient(first.cluster.urlFor('postgres'), (c) => passwordOf(c, 'authenticator'));
      const again = await Platform.open(await testConfig());
      await again.close();
      expect(await withClient(first.cluster.urlFor('postgres'), (c) => passwordOf(c, 'authenticator'))).toBe(before);
      await withClient(first.authenticatorUrl('gantry'), async (c) => {
        expect((await c.query('SELECT current_user AS u')).rows).toEqual([{ u: 'authenticator' }]);
      });
    } finally {
      await first.close();
    }
  });

  it('on a cluster whose authenticator another stack owns, leaves it alone and logs in as a role of its own', async () => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-shared-cluster-'));
    const config = loadConfig({ GANTRY_HOME: home, DATABASE_URL: '' });
    // Leases are per process, so the setup's cluster is released before the platform acquires it again.
    const setup = await acquireCluster(config, { settings: { fsync: 'off' } });
    let theirs: string | null;
    try {
      // A PostgREST or Supabase stack created its authenticator first, with its own password.
      await withClient(setup.urlFor('postgres'), (c) => c.query(`CREATE ROLE authenticator LOGIN NOINHERIT PASSWORD 'theirs'`));
      theirs = await withClient(setup.urlFor('postgres'), (c) => passwordOf(c, 'authenticator'));
    } finally {
      await setup.release();
    }
    try {
      for (let open = 0; open < 2; open++) {
        const platform = await Platform.open(config);
        try {
          await withClient(platform.authenticatorUrl('gantry'), async (c) => {
            expect((await c.query('SELECT current_user AS u')).rows).toEqual([{ u: 'gantry_authenticator' }]);
            await c.query('BEGIN; SET LOCAL ROLE anon; COMMIT');
          });
          expect(await withClient(platform.cluster.urlFor('postgres'), (c) => passwordOf(c, 'authenticator'))).toBe(theirs);
          await withClient(platform.cluster.urlAs('postgres', 'authenticator', 'theirs'), async (c) => {
            expect((await c.query('SELECT current_user AS u')).rows).toEqual([{ u: 'authenticator' }]);
          });
        } finally {
          await platform.close();
        }
      }
    } finally {
      await fs.rm(home, { recursive: true, force: true });
    }
  });
});
