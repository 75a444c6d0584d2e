import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../runtime/config-error.js';
import { createTestProject, startTestHost, type TestHost } from '../../helpers/platform.js';

/** TRUST_PROXY decides which client address auth rate limits and the audit log see. */

let host: TestHost | null = null;
afterEach(async () => {
  await host?.close();
  host = null;
});

async function signUpAddress(test: TestHost, forwardedFor: string): Promise<string | null> {
  const project = await createTestProject(test.platform, { host: test.host, autoconfirm: true });
  const res = await fetch(`${project.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: project.keys.anon_key, 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ email: 'proxied@example.com', password: 'secret1' }),
  });
  expect(res.status).toBe(200);
  const db = new pg.Client(test.platform.cluster.urlFor(project.record.databaseName));
  await db.connect();
  try {
    const { rows } = await db.query<{ ip_address: string | null }>(`SELECT ip_address FROM auth.audit_log_entries WHERE event = 'user_signedup'`);
    expect(rows).toHaveLength(1);
    return rows[0]!.ip_address;
  } finally {
    await db.end();
  }
}

describe('TRUST_PROXY', () => {
  it('unset: X-Forwarded-For is ignored, the connecting address counts', async () => {
    host = await startTestHost();
    expect(await signUpAddress(host, '203.0.113.7')).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it('loopback: the address a proxy on loopback forwards counts', async () => {
    host = await startTestHost({ TRUST_PROXY: 'loopback' });
    expect(await signUpAddress(host, '198.51.100.1, 203.0.113.7')).toBe('203.0.113.7');
  });

  it('a value express cannot parse stops the start with a clear error', async () => {
    await expect(startTestHost({ TRUST_PROXY: 'not-an-address' })).rejects.toThrow(ConfigError);
  });
});
