import type pg from 'pg';

/** What a project exposes until `api.schemas` says otherwise (PostgREST's `db-schemas` default). */
export const DEFAULT_EXPOSED_SCHEMAS: readonly string[] = ['public'];

/** Schemas that hold the platform's own objects or the system catalogs: never exposed. */
export function isForbiddenSchema(schema: string): boolean {
  return schema === 'auth' || schema === 'information_schema' || schema.startsWith('pg_');
}

/** The given schema names that the database connected to does not have (compared exactly, as bind parameters). */
export async function missingSchemas(client: pg.ClientBase, schemas: readonly string[]): Promise<string[]> {
  const { rows } = await client.query<{ nspname: string }>(
    'SELECT nspname::text FROM pg_catalog.pg_namespace WHERE nspname = ANY($1::text[])',
    [schemas],
  );
  const present = new Set(rows.map((row) => row.nspname));
  return schemas.filter((schema) => !present.has(schema));
}
