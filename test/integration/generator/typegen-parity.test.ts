import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitProject } from '../../../generator/emit/project.js';
import { introspectProject } from '../../../generator/introspect/introspect.js';
import { compileWithTypes } from '../../helpers/typescript.js';
import { createThrowawayDatabase, repoRoot, type ThrowawayDatabase } from './throwaway-database.js';

const fixture = (name: string): string => path.join(repoRoot, 'test/fixtures/schemas', name);

/** The `Database` type of a database.types.ts text: everything else (header, helpers) is the same for every project. */
function databaseType(text: string): string {
  const start = text.indexOf('export type Database = {');
  const end = text.indexOf('\n};\n', start);
  return text.slice(start, end + 4);
}

/**
 * typegen-parity.types.txt is postgres-meta's expected output for these objects (its
 * test/server/typegen.ts) in this generator's layout, except postgres_fdw_get_connections:
 * PostgreSQL 18 gave it OUT parameters and a `check_conn` argument, which are typed by
 * column here where postgres-meta's schema (an older postgres_fdw) had none.
 *
 * On the whole of postgres-meta's test schema (test/db/00-init.sql and 01-memes.sql) the
 * `Database` type differs from its snapshot in four places, all kept: that function; the
 * identity column of a partition, optional in `Insert` here because PostgreSQL 17 and later
 * give partitions their parent's identity (postgres-meta's snapshot comes from PostgreSQL 14,
 * where an insert into the partition must send it); an unnamed materialized-view row parameter,
 * typed as the view's `Row` where postgres-meta has `unknown`; and a table without columns,
 * `{ [_ in never]: never }` where postgres-meta writes `{}`.
 */
describe("database.types.ts on postgres-meta's typegen cases", () => {
  let db: ThrowawayDatabase;
  let files: Map<string, string>;

  beforeAll(async () => {
    db = await createThrowawayDatabase(['test/fixtures/schemas/typegen-parity.sql']);
    const client = await db.connect();
    try {
      files = emitProject(await introspectProject(client, { schemas: ['public'] }), { ref: 'parity' });
    } finally {
      await client.end();
    }
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('types intervals, rows of functions, extension-owned objects, unresolvable overloads and a doubly exposed key as supabase gen types does', async () => {
    const expected = await fs.readFile(fixture('typegen-parity.types.txt'), 'utf8');
    expect(databaseType(files.get('database.types.ts') ?? '')).toBe(expected);
  });

  it('compiles a supabase-js program that uses each case', async () => {
    const client = await fs.readFile(fixture('typegen-parity-client.ts.txt'), 'utf8');
    expect(await compileWithTypes('parity', files.get('database.types.ts') ?? '', client)).toEqual([]);
  }, 120_000);
});
