import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';

export const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** The SQL a project database starts with: API roles, the auth schema, Supabase-style grants. */
export const projectBootstrap = [
  'runtime/platform/sql/roles.sql',
  'runtime/platform/sql/project-auth.sql',
  'runtime/platform/sql/project-grants.sql',
];

export interface ThrowawayDatabase {
  readonly url: string;
  connect(): Promise<pg.Client>;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A fresh database in the suite's cluster, with the project bootstrap and the given SQL files applied. */
export async function createThrowawayDatabase(sqlFiles: readonly string[]): Promise<ThrowawayDatabase> {
  const adminUrl = inject('databaseUrl');
  const name = `gen_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client(url);
    await client.connect();
    return client;
  };
  const client = await connect();
  try {
    for (const file of [...projectBootstrap, ...sqlFiles]) {
      await client.query(await fs.readFile(path.join(repoRoot, file), 'utf8'));
    }
  } finally {
    await client.end();
  }
  return {
    url,
    connect,
    async drop() {
      const dropper = new pg.Client(adminUrl);
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
