import path from 'node:path';
import type pg from 'pg';
import type { SqlSite, UncheckableSite } from '../../runtime/extensions/sql-sites.js';
import { typeRefsByOid } from '../introspect/type-refs.js';
import type { TypeRef } from '../model/types.js';
import { describeStatement, type DescribeFailure } from './describe.js';

/** A query PostgreSQL described: the types of its parameters and result columns. */
export interface DescribedQuery {
  readonly text: string;
  readonly params: readonly TypeRef[];
  readonly columns: readonly { readonly name: string; readonly type: TypeRef; readonly nullable: boolean }[];
}

/** What checking a project's extension SQL found: typed queries, problems (failures) and uses it cannot check (warnings). */
export interface SqlCheck {
  readonly queries: readonly DescribedQuery[];
  /** `extensions/<ref>/file.ts:LINE:COL <query>: <PostgreSQL's message>`, one per site whose query PostgreSQL refuses. */
  readonly problems: readonly string[];
  /** `extensions/<ref>/file.ts:LINE:COL …not checkable…`, one per use of the query API whose SQL is built at run time. */
  readonly notCheckable: readonly string[];
}

/** Where the statements are described from: as an extension's request runs them. */
export interface DescribeAs {
  /** The role extension code runs as for a signed-in user. */
  readonly role: string;
  /** `search_path` as a request of the project sets it (its first exposed schema, then `api.extra_search_path`), quoted. */
  readonly searchPath: string;
  /** Whether `client` is inside a transaction of the caller's (a migration's): then a savepoint undoes what describing did. */
  readonly inTransaction: boolean;
}

/** A site as its line names it: `extensions/<ref>/index.ts:12:15`, from the folder that holds extensions/. */
export function siteLabel(extensionsDir: string, site: SqlSite | UncheckableSite): string {
  return `${path.relative(path.dirname(extensionsDir), site.file).split(path.sep).join('/')}:${site.line}:${site.col}`;
}

/** The query as a line shows it: its whitespace runs as one space. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

function failureText(text: string, error: DescribeFailure): string {
  const code = error.code ? ` (${error.code}` + (error.position ? `, at character ${error.position} of the query)` : ')') : '';
  return `${oneLine(text)}: ${error.message}${code}`;
}

const quoteLiteral = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/**
 * Describes every distinct query text of `sites` on `client` (never executing one) as `as.role` with the request's
 * `search_path`, inside a savepoint (a transaction of its own when `client` is not in one) that is rolled back: a
 * statement PostgreSQL refuses aborts the transaction up to it, and nothing of the settings outlives the check.
 */
export async function checkQueries(client: pg.ClientBase, sites: readonly (SqlSite | UncheckableSite)[], extensionsDir: string, as: DescribeAs): Promise<SqlCheck> {
  const notCheckable = sites
    .filter((s) => s.kind === 'not_checkable')
    .map((s) => `${siteLabel(extensionsDir, s)} not checkable: the query API called with SQL built at run time (only a ctx.sql\`…\` template is checked and typed)`);
  const queries = sites.filter((s): s is SqlSite => s.kind === 'query');
  const texts = [...new Set(queries.map((s) => s.text))];
  if (texts.length === 0) return { queries: [], problems: [], notCheckable };
  const enter = `SAVEPOINT gantry_describe; SET LOCAL search_path TO ${as.searchPath}; SET LOCAL ROLE ${quoteLiteral(as.role)}`;
  if (!as.inTransaction) await client.query('BEGIN');
  const described = new Map<string, Awaited<ReturnType<typeof describeStatement>>>();
  const failures = new Map<string, DescribeFailure>();
  try {
    await client.query(enter);
    for (const text of texts) {
      try {
        described.set(text, await describeStatement(client, text));
      } catch (error) {
        if (typeof (error as DescribeFailure).code !== 'string') throw error;
        failures.set(text, error as DescribeFailure);
        await client.query(`ROLLBACK TO SAVEPOINT gantry_describe; ${enter.slice(enter.indexOf(';') + 2)}`);
      }
    }
    await client.query('ROLLBACK TO SAVEPOINT gantry_describe; RELEASE SAVEPOINT gantry_describe');
  } finally {
    if (!as.inTransaction) await client.query('ROLLBACK');
  }
  return {
    queries: await typed(client, described),
    problems: queries.filter((s) => failures.has(s.text)).map((s) => `${siteLabel(extensionsDir, s)} ${failureText(s.text, failures.get(s.text)!)}`),
    notCheckable,
  };
}

/** The described queries with their types as TypeRefs and each column's nullability: NOT NULL only where Describe traced it to a NOT NULL column. */
async function typed(client: pg.ClientBase, described: ReadonlyMap<string, Awaited<ReturnType<typeof describeStatement>>>): Promise<DescribedQuery[]> {
  const all = [...described.values()];
  const types = await typeRefsByOid(client, all.flatMap((d) => [...d.params, ...d.fields.map((f) => f.typeOid)]));
  const traced = all.flatMap((d) => d.fields.filter((f) => f.tableOid !== 0));
  const notNull = new Set(
    traced.length === 0
      ? []
      : (
          await client.query<{ key: string }>(
            `SELECT attrelid::text || '.' || attnum AS key FROM pg_catalog.pg_attribute
             WHERE attnotnull AND (attrelid, attnum) IN (SELECT * FROM unnest($1::oid[], $2::int2[]))`,
            [traced.map((f) => f.tableOid), traced.map((f) => f.attnum)],
          )
        ).rows.map((r) => r.key),
  );
  return [...described].map(([text, d]) => ({
    text,
    params: d.params.map((oid) => types.get(oid)!),
    columns: d.fields.map((f) => ({ name: f.name, type: types.get(f.typeOid)!, nullable: !notNull.has(`${f.tableOid}.${f.attnum}`) })),
  }));
}
