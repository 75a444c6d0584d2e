import type { Logger } from 'pino';
import type { ProjectClaims } from '../auth/jwt.js';
import type { RequestIdentity } from '../db/rls-transaction.js';
import { logExtensionFault, requestScope, runEffects } from '../extensions/context.js';
import type { Extension, ExtensionContext, TableHooks } from '../extensions/define.js';
import type { ProjectContext } from '../platform/project-context.js';
import { pgrstError } from './errors.js';
import type { ProjectMeta } from './metadata.js';
import type { ApiRequest, RowsPayload } from './parse/ast.js';
import { mayCommit, needsCommitDecision } from './respond.js';
import { buildStatement } from './sql/build.js';
import type { ResultRow } from './sql/envelope.js';
import type { EmbedShape } from './sql/read-tree.js';
import { plannedRowsFromExplain, type BuiltStatement } from './sql/statement.js';

type Record_ = Record<string, unknown>;
export type AnyTableHooks = TableHooks<Record_, Record_, Record_>;

type AfterRead = NonNullable<AnyTableHooks['afterRead']>;

/** Where `afterRead` hooks apply in a body: to its own rows, and to embedded rows found by key. */
export interface BodyHooks {
  readonly afterRead: AfterRead | null;
  readonly embeds: readonly { readonly key: string; readonly toOne: boolean; readonly hooks: BodyHooks }[];
}

/** What a request runs of an extension: the hooks of the table it names, and the `afterRead` hooks of the rows its body shows. */
export interface RequestHooks {
  readonly table: AnyTableHooks;
  readonly body: BodyHooks | null;
}

function tableHooks(extension: Extension, relation: string | null): AnyTableHooks | null {
  if (relation === null || !relation.startsWith(`${extension.schema}.`)) return null;
  return extension.tables[relation.slice(extension.schema.length + 1)] ?? null;
}

/**
 * The `afterRead` hooks over rows of `shape`, or null when none applies. A spread merges its rows into
 * the parent's, where no hook could tell them apart: spreading a table with `afterRead` is refused,
 * rather than showing its rows as the hook would not.
 */
function bodyHooks(extension: Extension, shape: { readonly relation: string | null; readonly embeds: readonly EmbedShape[] }): BodyHooks | null {
  const afterRead = tableHooks(extension, shape.relation)?.afterRead ?? null;
  const embeds: { key: string; toOne: boolean; hooks: BodyHooks }[] = [];
  for (const embed of shape.embeds) {
    const hooks = bodyHooks(extension, embed);
    if (hooks === null) continue;
    if (embed.spread) {
      throw pgrstError('PGRST127', 'Feature not implemented', `'${embed.relation}' has an afterRead hook, which cannot see spread rows`,
        `Embed '${embed.key}' without the spread.`);
    }
    embeds.push({ key: embed.key, toOne: embed.toOne, hooks });
  }
  return afterRead === null && embeds.length === 0 ? null : { afterRead, embeds };
}

/**
 * The hooks a request runs, or null: it then takes the plain path, at its plain cost. The table's own
 * hooks for a request naming it; `afterRead` wherever the body shows rows of a table that has it
 * (the rows read or written, embedded rows, the rows a function returns).
 */
export function hooksFor(extension: Extension | null, request: ApiRequest, built: BuiltStatement): RequestHooks | null {
  if (extension === null) return null;
  const table = (request.action === 'call' || request.schema !== extension.schema ? null : extension.tables[request.target]) ?? null;
  const body = built.shape === null ? null : bodyHooks(extension, built.shape);
  return table === null && body === null ? null : { table: table ?? {}, body };
}

/**
 * Runs the `afterRead` hooks over `rows`: embedded rows first (once per parent row: its list, or its
 * one row), so a table's hook sees its embeds as their own hooks left them, then the rows' own hook.
 */
async function shapeRows(rows: Record_[], hooks: BodyHooks, ctx: ExtensionContext): Promise<Record_[]> {
  for (const embed of hooks.embeds) {
    for (const row of rows) {
      const value = row[embed.key];
      if (embed.toOne) {
        if (typeof value === 'object' && value !== null) row[embed.key] = (await shapeRows([value as Record_], embed.hooks, ctx))[0] ?? null;
      } else if (Array.isArray(value)) {
        row[embed.key] = await shapeRows(value as Record_[], embed.hooks, ctx);
      }
    }
  }
  return hooks.afterRead ? hookResultRows((await hooks.afterRead(rows, ctx)) ?? rows, 'afterRead') : rows;
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
  hooks: RequestHooks,
  identity: RequestIdentity,
  claims: ProjectClaims,
  initial: { readonly request: ApiRequest; readonly built: BuiltStatement },
  log: Logger,
): Promise<HookedResult> {
  const { action, media } = initial.request;
  const { table, body } = hooks;
  if (body !== null && media.kind === 'csv') {
    throw pgrstError('PGRST107', 'None of these media types are available: text/csv', 'The rows have an afterRead hook, which takes JSON rows.');
  }
  const write = action === 'insert' || action === 'update' || action === 'delete';
  let effects: (() => void | Promise<void>)[] = [];
  const { committed, value } = await logged(log, ctx.ref, () => ctx.executor.interactive(identity, { readOnly: initial.built.readOnly }, async (query) => {
    const scope = requestScope(query, claims);
    effects = scope.effects;
    let request = initial.request;
    if (action === 'insert' && table.beforeInsert && request.payload?.kind === 'rows') {
      const rows = rowsOf(request.payload);
      const replaced = await table.beforeInsert(rows, scope.context);
      if (replaced) request = { ...request, payload: payloadFrom(request, hookResultRows(replaced, 'beforeInsert')) };
    } else if (action === 'update' && table.beforeUpdate && request.payload?.kind === 'rows') {
      const patch = rowsOf(request.payload)[0] ?? {};
      const replaced = await table.beforeUpdate(patch, scope.context);
      if (replaced) request = { ...request, payload: payloadFrom(request, hookResultRows([replaced], 'beforeUpdate')) };
    } else if (action === 'delete' && table.beforeDelete) {
      await table.beforeDelete(scope.context);
    }
    const returnWritten = write && table.afterWrite !== undefined;
    const built = request === initial.request && !returnWritten
      ? initial.built
      : buildStatement(request, project, { aggregates: ctx.settings['api.aggregates'], returnWritten });
    let row = (await query(built.text, built.values)).rows[0] as ResultRow;
    const planned = built.plannedCount
      ? plannedRowsFromExplain(((await query(built.plannedCount.text, built.plannedCount.values)).rows[0] as Record_)['QUERY PLAN'])
      : null;
    if (write && table.afterWrite) {
      await table.afterWrite(JSON.parse(row.written ?? '[]') as Record_[], { ...scope.context, action });
    }
    if (body !== null && row.body !== null) {
      // One row, not a list: a singular Accept, or a function returning one row.
      const single = media.kind === 'object' || built.result === 'composite';
      const parsed = JSON.parse(row.body) as unknown;
      const rows = single ? (parsed === null ? [] : [parsed as Record_]) : (parsed as Record_[]);
      const shaped = await shapeRows(rows, body, scope.context);
      const text = single ? JSON.stringify(shaped[0] ?? null) : JSON.stringify(shaped);
      // A singular body shows the first of the rows the statement counted: the count stays the database's unless the hook dropped it.
      const pageCount = single ? (shaped.length === 0 ? 0 : row.page_count) : shaped.length;
      row = { ...row, body: text, page_count: pageCount };
    }
    const commit = !needsCommitDecision(request, built) || mayCommit(request, built, row);
    return { commit, value: { request, built, row, planned } };
  }));
  if (committed) await runEffects(effects, log, ctx.ref);
  return value;
}
