import type pg from 'pg';
import { makeIntrospectionQuery, parseIntrospectionResults } from 'pg-introspection';
import type { SchemaModel } from '../model/types.js';
import { buildSchemaModel } from './build-model.js';
import {
  columnTextQuery,
  domainCastQuery,
  functionGrantQuery,
  functionTextQuery,
  policyQuery,
  tableGrantQuery,
  typeTextQuery,
  viewRuleQuery,
  type ColumnTextRow,
  type DomainCastRow,
  type FunctionGrantRow,
  type FunctionTextRow,
  type PolicyRow,
  type TableGrantRow,
  type TypeTextRow,
  type ViewRuleRow,
} from './catalog-queries.js';
import { isForbiddenSchema } from '../../runtime/platform/exposed-schemas.js';
import { IntrospectionError } from './errors.js';

export interface IntrospectOptions {
  /** Exposed schemas, the default profile first. Defaults to `['public']`. */
  readonly schemas?: readonly string[];
  /**
   * The client is inside a transaction of the caller's (a migration's, before its COMMIT): read the
   * schema as that transaction sees it, in a savepoint that is rolled back afterwards (with the
   * search_path set for the reading).
   */
  readonly inTransaction?: boolean;
}

/**
 * Reads the exposed schemas of a project database into a SchemaModel. Runs every query
 * in one read-only repeatable-read transaction so the model is one consistent snapshot,
 * with `search_path = pg_catalog` so `format_type` qualifies every non-catalog type.
 * The client must not be inside a transaction, unless `inTransaction` says so.
 */
export async function introspectProject(client: pg.ClientBase, options: IntrospectOptions = {}): Promise<SchemaModel> {
  const schemas = [...(options.schemas ?? ['public'])];
  const forbidden = schemas.filter(isForbiddenSchema);
  if (forbidden.length > 0) {
    throw new IntrospectionError('forbidden_schema', `These schemas can never be exposed: ${forbidden.join(', ')}`);
  }
  const nested = options.inTransaction ?? false;
  await client.query(nested ? 'savepoint gantry_introspect' : 'begin transaction isolation level repeatable read read only');
  try {
    await client.query(`select pg_catalog.set_config('search_path', 'pg_catalog', true)`);
    const present = await client.query<{ nspname: string }>(
      'select nspname::text from pg_catalog.pg_namespace where nspname = any($1::text[])',
      [schemas],
    );
    const missing = schemas.filter((schema) => !present.rows.some((row) => row.nspname === schema));
    if (missing.length > 0) {
      throw new IntrospectionError('missing_schema', `These schemas do not exist: ${missing.join(', ')}`);
    }
    const introspectionText = await client.query<{ introspection: string }>(makeIntrospectionQuery());
    const text = introspectionText.rows[0]?.introspection;
    if (text === undefined) throw new IntrospectionError('introspection_failed', 'The introspection query returned no row');
    const rows = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = [schemas]): Promise<T[]> =>
      (await client.query<T>(sql, params)).rows;
    const model = buildSchemaModel({
      schemas,
      // With objects owned by extensions (pg_depend deptype 'e', which pg-introspection drops
      // by default): PostgREST serves an extension's functions and tables in an exposed
      // schema like any other, and `supabase gen types` types them.
      introspection: parseIntrospectionResults(text, true),
      typeTexts: await rows<TypeTextRow>(typeTextQuery, []),
      columnTexts: await rows<ColumnTextRow>(columnTextQuery),
      policies: await rows<PolicyRow>(policyQuery),
      tableGrants: await rows<TableGrantRow>(tableGrantQuery),
      functionTexts: await rows<FunctionTextRow>(functionTextQuery),
      functionGrants: await rows<FunctionGrantRow>(functionGrantQuery),
      viewRules: await rows<ViewRuleRow>(viewRuleQuery, []),
      domainCasts: await rows<DomainCastRow>(domainCastQuery, []),
    });
    await client.query(nested ? 'rollback to savepoint gantry_introspect; release savepoint gantry_introspect' : 'commit');
    return model;
  } catch (error) {
    // A failed rollback (a lost connection) must not hide why introspection failed.
    await client.query(nested ? 'rollback to savepoint gantry_introspect' : 'rollback').catch(() => undefined);
    throw error;
  }
}
