import path from 'node:path';
import type pg from 'pg';
import type ts from 'typescript';
import { findSqlSites } from '../../runtime/extensions/sql-sites.js';
import { extensionProgram, QUERY_TYPES_FILE } from '../../runtime/extensions/typecheck.js';
import { quoteIdent } from '../../runtime/db/identifiers.js';
import { emitExtensionQueries } from '../emit/extension-queries.js';
import { compareCodePoints } from '../model/sort.js';
import type { SchemaModel } from '../model/types.js';
import { checkQueries, type SqlCheck } from './check-queries.js';

/** The role the statements are described as: the one extension code runs as for a signed-in user (docs/extensions.md). */
export const DESCRIBE_ROLE = 'authenticated';

export interface QueryTypesInput {
  readonly ref: string;
  readonly extensionsDir: string;
  readonly generatedDir: string;
  readonly model: SchemaModel;
  /** `api.extra_search_path`: what follows the first exposed schema on a request's `search_path`. */
  readonly extraSearchPath: readonly string[];
  readonly inTransaction: boolean;
}

/** The generated files with `extension-queries.ts` added, what checking the SQL found, and the extension's program (typecheck.ts reuses it). */
export interface WithQueryTypes {
  readonly files: Map<string, string>;
  readonly sql: SqlCheck;
  readonly program: ts.Program | null;
}

/**
 * The extension's query sites found in its program (built against `files` as generated/<ref>/), described on
 * `client` as the schema stands there, and their types emitted; a project without extension code gets no file.
 */
export async function withQueryTypes(client: pg.ClientBase, files: ReadonlyMap<string, string>, input: QueryTypesInput): Promise<WithQueryTypes> {
  const dir = path.join(input.generatedDir, input.ref);
  const overrides = new Map([...files].map(([file, text]) => [path.join(dir, file), text]));
  const built = extensionProgram({ extensionsDir: input.extensionsDir, ref: input.ref, overrides });
  if (!built) return { files: new Map(files), sql: { queries: [], problems: [], notCheckable: [] }, program: null };
  const searchPath = [input.model.schemas[0] ?? 'public', ...input.extraSearchPath].map(quoteIdent).join(', ');
  const sql = await checkQueries(client, findSqlSites(built.program, built.files), input.extensionsDir, {
    role: DESCRIBE_ROLE,
    searchPath,
    inTransaction: input.inTransaction,
  });
  const all = new Map(files);
  all.set(QUERY_TYPES_FILE, emitExtensionQueries(input.ref, input.model, sql.queries));
  return { files: new Map([...all].sort(([a], [b]) => compareCodePoints(a, b))), sql, program: built.program };
}
