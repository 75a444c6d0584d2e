import type pg from 'pg';
import type { ProjectClaims } from '../tokens/jwt.js';
import type { RequestIdentity } from '../db/rls-transaction.js';
import { logExtensionFault, requestScope, runEffects, type FaultLog } from './context.js';
import { currentRequest } from '../http/request-scope.js';
import type { Extension, ExtensionContext, TableHooks } from './define.js';
import type { ProjectContext } from '../platform/project-context.js';
import { pgrstError } from '../rest/errors.js';
import type { ProjectMeta } from '../rest/metadata.js';
import type { ApiRequest, RowsPayload } from '../rest/parse/ast.js';
import { mayCommit, needsCommitDecision } from '../rest/respond.js';
import { buildStatement } from '../rest/sql/build.js';
import type { ResultRow } from '../rest/sql/envelope.js';
import type { DataApiHooks, HookedResult } from '../rest/server.js';
import { extensionUnavailableError, requestNeedsExtension, type UnavailableExtension } from './unavailable.js';
import type { LoadedExtension } from './loader.js';
import { plannedRowsFromExplain, type BodyShape, type BuiltStatement } from '../rest/sql/statement.js';

type Record_ = Record<string, unknown>;
export type AnyTableHooks = TableHooks<Record_, Record_, Record_>;

type AfterRead = NonNullable<AnyTableHooks['afterRead']>;

/** Where `afterRead` hooks apply in a body: to its own rows, and to embedded rows found by key. */
export interface BodyHooks {
  /** The table's name among the extension's `tables`, for the log. */
  readonly table: string;
  readonly afterRead: AfterRead | null;
  readonly embeds: readonly { readonly key: string; readonly toOne: boolean; readonly hooks: BodyHooks }[];
}

/** What a request runs of an extension: the hooks of the table it names, and the `afterRead` hooks of the rows its body shows. */
export interface RequestHooks {
  readonly table: AnyTableHooks;
  readonly body: BodyHooks | null;
}

function hookedTable(extension: Extension, relation: string | null): string | null {
  if (relation === null || !relation.startsWith(`${extension.schema}.`)) return null;
  const name = relation.slice(extension.schema.length + 1);
  return Object.hasOwn(extension.tables, name) ? name : null;
}

/**
 * The `afterRead` hooks over rows of `shape`, or null when none applies. A spread merges its rows into
 * the parent's, where no hook could tell them apart: spreading a table with `afterRead` is refused,
 * rather than showing its rows as the hook would not.
 */
function bodyHooks(extension: Extension, shape: BodyShape): BodyHooks | null {
  const table = hookedTable(extension, shape.relation);
  const afterRead = (table !== null ? extension.tables[table]?.afterRead : null) ?? null;
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
  return afterRead === null && embeds.length === 0 ? null : { table: table ?? shape.relation ?? '', afterRead, embeds };
}

/**
 * The hooks a request runs, or null: it then takes the plain path, at its plain cost. The table's own
 * hooks for a request naming it; `afterRead` wherever the body shows rows of a table that has it
 * (the rows read or written, embedded rows, the rows a function returns). CSV of such rows, or a media type
 * handler's body of them, is refused here, before anything runs: `afterRead` takes JSON rows.
 */
export function hooksFor(extension: Extension | null, request: ApiRequest, built: BuiltStatement): RequestHooks | null {
  if (extension === null) return null;
  const table = (request.action === 'call' || request.schema !== extension.schema ? null : extension.tables[request.target]) ?? null;
  const body = built.shape === null ? null : bodyHooks(extension, built.shape);
  if (body !== null && (request.media.kind === 'csv' || request.media.kind === 'handler')) {
    const type = request.media.kind === 'handler' ? request.media.handler.mediaType : 'text/csv';
    throw pgrstError('PGRST107', `None of these media types are available: ${type}`, 'The rows have an afterRead hook, which takes JSON rows.');
  }
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
  const { afterRead } = hooks;
  return afterRead ? inHook(`${hooks.table}.afterRead`, async () => hookResultRows((await afterRead(rows, ctx)) ?? rows, 'afterRead')) : rows;
}

/** The result row with its body through the `afterRead` hooks. */
async function shapeResult(row: ResultRow, hooks: BodyHooks, request: ApiRequest, built: BuiltStatement, ctx: ExtensionContext): Promise<ResultRow> {
  if (row.body === null) return row;
  // One row, not a list: a singular Accept, or a function returning one row.
  const single = request.media.kind === 'object' || built.result === 'composite';
  const parsed = JSON.parse(row.body) as unknown;
  const rows = single ? (parsed === null ? [] : [parsed as Record_]) : (parsed as Record_[]);
  const shaped = await shapeRows(rows, hooks, ctx);
  const text = single ? JSON.stringify(shaped[0] ?? null) : JSON.stringify(shaped);
  // A singular body shows the first of the rows the statement counted: the count stays the database's unless the hook dropped it.
  const pageCount = single ? (shaped.length === 0 ? 0 : row.page_count) : shaped.length;
  return { ...row, body: text, page_count: pageCount };
}

/**
 * Whether the hooks only reshape what the request reads: a read-only read or call (no `before*` or
 * `afterWrite` applies), so it runs on the data API's pipelined path and `afterRead` after it.
 */
export function onlyReshapes(request: ApiRequest, built: BuiltStatement): boolean {
  return built.readOnly && (request.action === 'read' || request.action === 'call');
}

type Query = (text: string, values: readonly unknown[]) => Promise<pg.QueryResult>;

/**
 * A read-only transaction as `identity`, opened on its first query (so a hook that does not query costs
 * none), kept open until `end`.
 */
function transactionOnDemand(ctx: ProjectContext, identity: RequestIdentity): { readonly query: Query; end(): Promise<void> } {
  let opened: Promise<Query> | null = null;
  let running: Promise<unknown> | null = null;
  let finish = (): void => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  return {
    query(text, values) {
      opened ??= new Promise<Query>((resolve, reject) => {
        running = ctx.executor.interactive(identity, { readOnly: true }, async (query) => {
          resolve(query);
          await finished;
          return { commit: true, value: null };
        });
        running.catch(reject);
      });
      return opened.then((query) => query(text, values));
    },
    async end() {
      finish();
      await running?.catch(() => undefined);
    },
  };
}

/**
 * `afterRead` over a read that ran on the pipelined path. A hook's `ctx.sql` runs in a read-only
 * transaction of its own with the request's role and claims, opened on its first query: as the read's
 * own statement does, each of its statements sees what was committed when it starts (READ COMMITTED),
 * and only hooks that query pay for a transaction. `afterCommit` effects run once the hooks are done.
 */
export async function shapeRead(
  ctx: ProjectContext,
  hooks: BodyHooks,
  identity: RequestIdentity,
  claims: ProjectClaims,
  read: { readonly request: ApiRequest; readonly built: BuiltStatement; readonly row: ResultRow },
  faults: FaultLog,
): Promise<ResultRow> {
  const transaction = transactionOnDemand(ctx, identity);
  const scope = requestScope(transaction.query, claims);
  let row: ResultRow;
  try {
    row = await logged(faults, ctx.ref, () => shapeResult(read.row, hooks, read.request, read.built, scope.context));
  } finally {
    await transaction.end();
  }
  await runEffects(scope.effects, faults, ctx.ref);
  return row;
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

/** Which hook threw an error, so the log names it (the client sees only a 500). */
const hookOfError = new WeakMap<object, string>();

async function inHook<T>(hook: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (typeof error === 'object' && error !== null && !hookOfError.has(error)) hookOfError.set(error, hook);
    throw error;
  }
}

async function logged<T>(faults: FaultLog, ref: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const hook = typeof error === 'object' && error !== null ? hookOfError.get(error) : undefined;
    logExtensionFault(error, faults, ref, hook === undefined ? 'hook' : `hook ${hook}`);
    throw error;
  }
}

/**
 * A write (or a read-write call) with hooks: one interactive transaction (a pooled connection, each
 * statement awaited) in which the `before*` hook runs, then the data API's statement, then
 * `afterWrite` and `afterRead` (on the returned representation); COMMIT unless anything threw or the
 * request's own commit rule says no; `afterCommit` effects only after a COMMIT. Rows are parsed into
 * objects only for the hooks that take them. (Reads take `shapeRead`.)
 */
export async function runHooked(
  ctx: ProjectContext,
  project: ProjectMeta,
  hooks: RequestHooks,
  identity: RequestIdentity,
  claims: ProjectClaims,
  initial: { readonly request: ApiRequest; readonly built: BuiltStatement },
  faults: FaultLog,
): Promise<HookedResult> {
  const { action } = initial.request;
  const { table, body } = hooks;
  const hook = (name: string) => `${initial.request.target}.${name}`;
  const write = action === 'insert' || action === 'update' || action === 'delete';
  let effects: (() => void | Promise<void>)[] = [];
  const { committed, value } = await logged(faults, ctx.ref, () => ctx.executor.interactive(identity, { readOnly: initial.built.readOnly }, async (query) => {
    const scope = requestScope(query, claims);
    effects = scope.effects;
    let request = initial.request;
    if (action === 'insert' && table.beforeInsert && request.payload?.kind === 'rows') {
      const { beforeInsert } = table;
      const rows = rowsOf(request.payload);
      const replaced = await inHook(hook('beforeInsert'), async () => {
        const value = await beforeInsert(rows, scope.context);
        return value && hookResultRows(value, 'beforeInsert');
      });
      if (replaced) request = { ...request, payload: payloadFrom(request, replaced) };
    } else if (action === 'update' && table.beforeUpdate && request.payload?.kind === 'rows') {
      const { beforeUpdate } = table;
      const patch = rowsOf(request.payload)[0] ?? {};
      const replaced = await inHook(hook('beforeUpdate'), async () => {
        const value = await beforeUpdate(patch, scope.context);
        return value && hookResultRows([value], 'beforeUpdate');
      });
      if (replaced) request = { ...request, payload: payloadFrom(request, replaced) };
    } else if (action === 'delete' && table.beforeDelete) {
      const { beforeDelete } = table;
      await inHook(hook('beforeDelete'), async () => beforeDelete(scope.context));
    }
    const returnWritten = write && table.afterWrite !== undefined;
    const built = request === initial.request && !returnWritten
      ? initial.built
      : buildStatement(request, project, { aggregates: ctx.settings['api.aggregates'], returnWritten });
    let row = (await query(built.text, built.values)).rows[0] as ResultRow;
    const planned = built.plannedCount
      ? plannedRowsFromExplain(((await query(built.plannedCount.text, built.plannedCount.values)).rows[0] as Record_)['QUERY PLAN'])
      : null;
    const { afterWrite } = table;
    if (write && afterWrite) {
      const written = JSON.parse(row.written ?? '[]') as Record_[];
      await inHook(hook('afterWrite'), async () => afterWrite(written, { ...scope.context, action }));
    }
    if (body !== null) row = await shapeResult(row, body, request, built, scope.context);
    const commit = !needsCommitDecision(request, built) || mayCommit(request, built, row);
    return { commit, value: { request, built, row, planned } };
  }));
  if (committed) await runEffects(effects, faults, ctx.ref);
  return value;
}

/**
 * The data API's hooks of a project (null when it has no extension): its extension's table hooks, or,
 * when the extension could not be loaded, a refusal of the requests that would need it.
 */
export function dataApiHooks(ctx: ProjectContext, project: ProjectMeta, extension: LoadedExtension | null, unavailable: UnavailableExtension | null): DataApiHooks | null {
  if (!extension && !unavailable) return null;
  return {
    of(request, built, requestId) {
      if (unavailable && requestNeedsExtension(unavailable, request, built.shape)) throw extensionUnavailableError(ctx.ref);
      const hooks = extension && hooksFor(extension.extension, request, built);
      if (!extension || !hooks) return null;
      const { body } = hooks;
      // Only for a request that runs hooks, and outside a request scope (whose lines carry the id already): their failures' lines name the request.
      const faults: FaultLog = requestId === null || currentRequest() !== undefined ? extension : { log: extension.log.child({ request_id: requestId }), locate: extension.locate };
      return {
        run: onlyReshapes(request, built) ? null : (identity, claims, initial) => runHooked(ctx, project, hooks, identity, claims, initial, faults),
        shape: body ? (identity, claims, read) => shapeRead(ctx, body, identity, claims, read, faults) : null,
      };
    },
  };
}
