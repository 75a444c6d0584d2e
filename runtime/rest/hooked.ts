import type { Logger } from 'pino';
import type { ProjectClaims } from '../auth/jwt.js';
import type { RequestIdentity } from '../db/rls-transaction.js';
import { logExtensionFault, requestScope, runEffects } from '../extensions/context.js';
import type { Extension, TableHooks } from '../extensions/define.js';
import type { ProjectContext } from '../platform/project-context.js';
import { pgrstError } from './errors.js';
import type { ProjectMeta } from './metadata.js';
import type { ApiRequest, RowsPayload } from './parse/ast.js';
import { mayCommit, needsCommitDecision } from './respond.js';
import { buildStatement } from './sql/build.js';
import type { ResultRow } from './sql/envelope.js';
import { plannedRowsFromExplain, type BuiltStatement } from './sql/statement.js';

type Record_ = Record<string, unknown>;
export type AnyTableHooks = TableHooks<Record_, Record_, Record_>;

/** The hooks of the table a request names, or null: the request then takes the plain path, at its plain cost. */
export function hooksFor(extension: Extension | null, request: ApiRequest): AnyTableHooks | null {
  if (extension === null || request.action === 'call' || request.schema !== extension.schema) return null;
  return extension.tables[request.target] ?? null;
}

/** What the hooked path hands back to the response writer: the request as finally built and its result row. */
export interface HookedResult {
  readonly request: ApiRequest;
  readonly built: BuiltStatement;
  readonly row: ResultRow;
  readonly planned: number | null;
}

function rowsOf(payload: RowsPayload): Record_[] {
  return JSON.parse(payload.json) as Record_[];
}

/** The payload of rows a `before*` hook returned; keys in order of first appearance (or the `columns=` list). */
function payloadFrom(request: ApiRequest, rows: readonly Record_[]): RowsPayload {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) keys.add(key);
  return { kind: 'rows', json: JSON.stringify(rows), keys: request.columns ?? [...keys], rowCount: rows.length };
}

function hookResultRows(value: unknown, hook: string): Record_[] {
  if (!Array.isArray(value) || !value.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row))) {
    throw new TypeError(`${hook} must return an array of objects (or nothing)`);
  }
  return value as Record_[];
}

async function logged<T>(log: Logger, ref: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    logExtensionFault(error, log, ref, 'hook');
    throw error;
  }
}

/**
 * A request to a table with hooks: one interactive transaction (a pooled connection, each
 * statement awaited) in which the `before*` hook runs, then the data API's statement, then
 * `afterWrite` / `afterRead` (on every body of rows, reads and returned representations); COMMIT unless anything threw or the request's own commit rule
 * says no; `afterCommit` effects only after a COMMIT. Rows are parsed into objects only for the
 * hooks that take them.
 */
export async function runHooked(
  ctx: ProjectContext,
  project: ProjectMeta,
  hooks: AnyTableHooks,
  identity: RequestIdentity,
  claims: ProjectClaims,
  initial: { readonly request: ApiRequest; readonly built: BuiltStatement },
  log: Logger,
): Promise<HookedResult> {
  const { action, media } = initial.request;
  if (hooks.afterRead && media.kind === 'csv') {
    throw pgrstError('PGRST107', 'None of these media types are available: text/csv', 'The table has an afterRead hook, which takes JSON rows.');
  }
  const write = action === 'insert' || action === 'update' || action === 'delete';
  let effects: (() => void | Promise<void>)[] = [];
  const { committed, value } = await logged(log, ctx.ref, () => ctx.executor.interactive(identity, { readOnly: initial.built.readOnly }, async (query) => {
    const scope = requestScope(query, claims);
    effects = scope.effects;
    let request = initial.request;
    if (action === 'insert' && hooks.beforeInsert && request.payload?.kind === 'rows') {
      const rows = rowsOf(request.payload);
      const replaced = await hooks.beforeInsert(rows, scope.context);
      if (replaced) request = { ...request, payload: payloadFrom(request, hookResultRows(replaced, 'beforeInsert')) };
    } else if (action === 'update' && hooks.beforeUpdate && request.payload?.kind === 'rows') {
      const patch = rowsOf(request.payload)[0] ?? {};
      const replaced = await hooks.beforeUpdate(patch, scope.context);
      if (replaced) request = { ...request, payload: payloadFrom(request, hookResultRows([replaced], 'beforeUpdate')) };
    } else if (action === 'delete' && hooks.beforeDelete) {
      await hooks.beforeDelete(scope.context);
    }
    const returnWritten = write && hooks.afterWrite !== undefined;
    const built = request === initial.request && !returnWritten
      ? initial.built
      : buildStatement(request, project, { aggregates: ctx.settings['api.aggregates'], returnWritten });
    let row = (await query(built.text, built.values)).rows[0] as ResultRow;
    const planned = built.plannedCount
      ? plannedRowsFromExplain(((await query(built.plannedCount.text, built.plannedCount.values)).rows[0] as Record_)['QUERY PLAN'])
      : null;
    if (write && hooks.afterWrite) {
      await hooks.afterWrite(JSON.parse(row.written ?? '[]') as Record_[], { ...scope.context, action });
    }
    if (hooks.afterRead && row.body !== null) {
      const parsed = JSON.parse(row.body) as unknown;
      const rows = media.kind === 'object' ? (parsed === null ? [] : [parsed as Record_]) : (parsed as Record_[]);
      const shaped = hookResultRows((await hooks.afterRead(rows, scope.context)) ?? rows, 'afterRead');
      const body = media.kind === 'object' ? JSON.stringify(shaped[0] ?? null) : JSON.stringify(shaped);
      // A singular body shows the first of the rows the statement counted: the count stays the database's unless the hook dropped it.
      const pageCount = media.kind === 'object' ? (shaped.length === 0 ? 0 : row.page_count) : shaped.length;
      row = { ...row, body, page_count: pageCount };
    }
    const commit = !needsCommitDecision(request, built) || mayCommit(request, built, row);
    return { commit, value: { request, built, row, planned } };
  }));
  if (committed) await runEffects(effects, log, ctx.ref);
  return value;
}
