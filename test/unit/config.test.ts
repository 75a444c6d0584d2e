import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../runtime/config-error.js';
import { loadConfig } from '../../runtime/config.js';

const POOLED = 'postgres://app:pw@pooler.internal:6432/postgres';
const DIRECT = 'postgres://app:pw@db.internal:5432/postgres';

describe('DATABASE_DIRECT_URL and DB_PREPARED_STATEMENTS', () => {
  it('names its prepared statements with one URL, direct or embedded', () => {
    expect(loadConfig({})).toMatchObject({ databaseUrl: null, databaseDirectUrl: null, preparedStatements: true });
    expect(loadConfig({ DATABASE_URL: DIRECT })).toMatchObject({ databaseUrl: DIRECT, databaseDirectUrl: null, preparedStatements: true });
  });

  it('turns them off when a direct URL says DATABASE_URL is a pooler', () => {
    expect(loadConfig({ DATABASE_URL: POOLED, DATABASE_DIRECT_URL: DIRECT })).toMatchObject({
      databaseUrl: POOLED,
      databaseDirectUrl: DIRECT,
      preparedStatements: false,
    });
  });

  it('takes an explicit setting either way (PgBouncer ≥ 1.21 with max_prepared_statements, or a pooler without a direct URL)', () => {
    expect(loadConfig({ DATABASE_URL: POOLED, DATABASE_DIRECT_URL: DIRECT, DB_PREPARED_STATEMENTS: 'true' }).preparedStatements).toBe(true);
    expect(loadConfig({ DATABASE_URL: DIRECT, DB_PREPARED_STATEMENTS: 'FALSE' }).preparedStatements).toBe(false);
    expect(loadConfig({ DATABASE_URL: DIRECT, DB_PREPARED_STATEMENTS: '' }).preparedStatements).toBe(true);
  });

  it('refuses a value that is neither true nor false, and a direct URL without DATABASE_URL', () => {
    expect(() => loadConfig({ DB_PREPARED_STATEMENTS: 'off' })).toThrow(new ConfigError('DB_PREPARED_STATEMENTS must be true or false, got "off"'));
    expect(() => loadConfig({ DATABASE_DIRECT_URL: DIRECT })).toThrow(
      new ConfigError('DATABASE_DIRECT_URL is given without DATABASE_URL: it names the direct way to the cluster of DATABASE_URL'),
    );
  });
});
