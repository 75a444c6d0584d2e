import { createHash } from 'node:crypto';
import pg from 'pg';
import { BoundedPool, type PoolGrowth } from './bounded-pool.js';
import { checkoutGate, UNBOUNDED_WAIT, type ConnectionBudget, type Permit, type WaitLimits } from './connection-budget.js';
import { surviveDroppedConnections } from './pool-errors.js';
import { ConnectionsClosedError } from './connection-failure.js';
import { endWith, inSpan, startSpan, tracingOn } from '../tracing.js';

/** Who the request runs as: set with `set_config(..., true)` at the start of its transaction. */
export interface RequestIdentity {
  /** A role the authenticator may switch to (checked before this point). */
  readonly role: string;
  /** The whole JWT claims object as JSON text (`request.jwt.claims`). */
  readonly claims: string;
  readonly method: string;
  readonly path: string;
  /** Request headers as a JSON object text (`request.headers`). */
  readonly headers: string;
  /** Request cookies as a JSON object text (`request.cookies`). */
  readonly cookies: string;
  /** The request's schema, then the project's extra schemas: quoted identifiers, comma-separated (`search_path`). */
  readonly searchPath: string;
  /** `Prefer: timezone=`: the request's `timezone`, or null for the database's. */
  readonly timezone: string | null;
  /** The project's pre-request function (PostgREST's `db-pre-request`), a quoted qualified name, called after the settings; or null. */
  readonly preRequest: string | null;
  /** The project's `app.settings.*` GUCs (PostgREST's `app.settings.*` config), full names and values, set after the others. */
  readonly appSettings: readonly (readonly [name: string, value: string])[];
}

export interface TxStatement {
  /** Prepared-statement name; its SQL text depends only on the request's shape. */
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
}

export interface TxOptions {
  readonly readOnly: boolean;
  /**
   * Given: the transaction waits for the statements' results and commits only when this
   * returns true (e.g. a singular response that matched two rows must change nothing).
   */
  readonly commitIf?: (results: readonly pg.QueryResult[]) => boolean;
  /**
   * A read expected to be slow (e.g. it counts every matching row): it takes a pooled
   * connection so that the transactions queued on a shared one do not wait behind it.
   */
  readonly slow?: boolean;
}

/** What the identity sets, in PostgREST's order; `timezone` only when the request asks for one. */
const IDENTITY_SETTINGS = ['search_path', 'role', 'request.jwt.claims', 'request.method', 'request.path', 'request.headers', 'request.cookies'];

/** What an identity statement's text depends on: everything else about a request is a bind parameter. */
export interface IdentityShape {
  readonly timezone: boolean;
  readonly preRequest: string | null;
  /** How many `app.settings.*` GUCs follow; their names are bind parameters too. */
  readonly appSettings: number;
}

/**
 * The statement that sets the identity, each value a bind parameter named by `param` (1-based, as `$n`), then
 * calls the pre-request function: PostgreSQL evaluates a target list in order, so it sees every setting. The
 * settings are made in a subquery whose columns nobody reads (volatile calls are still evaluated), so the answer is
 * one row of no columns: set_config returns the value it set, and the claims and headers would otherwise come back
 * over the wire and be parsed for nothing in every request.
 */
export function identitySql(param: (n: number) => string, shape: IdentityShape): string {
  const settings = shape.timezone ? [...IDENTITY_SETTINGS, 'timezone'] : IDENTITY_SETTINGS;
  const items = settings.map((name, i) => `set_config('${name}', ${param(i + 1)}, true)`);
  for (let i = 0, n = settings.length + 1; i < shape.appSettings; i++, n += 2) items.push(`set_config(${param(n)}, ${param(n + 1)}, true)`);
  if (shape.preRequest !== null) items.push(`${shape.preRequest}()`);
  return `SELECT FROM (SELECT ${items.join(', ')}) AS "gantry_identity"`;
}

/** The values of `identitySql`'s parameters. */
export function identityValues(identity: RequestIdentity): string[] {
  const values = [identity.searchPath, identity.role, identity.claims, identity.method, identity.path, identity.headers, identity.cookies];
  if (identity.timezone !== null) values.push(identity.timezone);
  for (const [name, value] of identity.appSettings) values.push(name, value);
  return values;
}

/** Identity statements by their shape: with or without a timezone, how many app settings, and the project's pre-request function. */
const identityStatements = new Map<string, { readonly name: string; readonly text: string }>();

function namedIdentitySql(shape: IdentityShape): { readonly name: string; readonly text: string } {
  const pre = shape.preRequest === null ? '' : `_${createHash('sha256').update(shape.preRequest).digest('hex').slice(0, 16)}`;
  const app = shape.appSettings === 0 ? '' : `_app${shape.appSettings}`;
  return { name: `gantry_set_config${shape.timezone ? '_tz' : ''}${app}${pre}`, text: identitySql((n) => `$${n}`, shape) };
}

/** Most requests' shape (no timezone, no app settings, no pre-request function): no key to build for it. */
const PLAIN_IDENTITY = namedIdentitySql({ timezone: false, preRequest: null, appSettings: 0 });

function identityStatement(identity: RequestIdentity): TxStatement {
  const values = identityValues(identity);
  if (identity.timezone === null && identity.preRequest === null && identity.appSettings.length === 0) {
    return { name: PLAIN_IDENTITY.name, text: PLAIN_IDENTITY.text, values };
  }
  const shape: IdentityShape = { timezone: identity.timezone !== null, preRequest: identity.preRequest, appSettings: identity.appSettings.length };
  const key = `${shape.timezone ? 'tz' : ''}:${shape.appSettings}:${shape.preRequest ?? ''}`;
  let statement = identityStatements.get(key);
  if (!statement) {
    statement = namedIdentitySql(shape);
    identityStatements.set(key, statement);
  }
  return { name: statement.name, text: statement.text, values };
}

/** The part of node-postgres's socket used to batch a transaction's writes. */
interface Corkable {
  cork?(): void;
  uncork?(): void;
}

/**
 * Prepared statements one connection may hold. Statement names follow the request's
 * shape, and clients choose shapes (aliases, filters), so without a bound a client could
 * grow a backend's memory at will; a connection past it is replaced once its queue drains.
 */
export const MAX_PREPARED_PER_CONNECTION = 1000;

const BEGIN_READ_ONLY = 'BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY';
const BEGIN_READ_WRITE = 'BEGIN ISOLATION LEVEL READ COMMITTED';

/** A statement as pg sends it: named (parsed once per connection) or unnamed (parsed each time). */
function queryConfig(statement: TxStatement, named: boolean): pg.QueryConfig {
  const { text, values } = statement;
  return named ? { name: statement.name, text, values: values as unknown[] } : { text, values: values as unknown[] };
}

/**
 * Sends one statement; while tracing is on, in a span of its own from the moment it is queued to its answer.
 * The span carries the statement's text, whose values are bind parameters: never the values themselves.
 */
function send(client: pg.Client | pg.PoolClient, statement: string | pg.QueryConfig): Promise<pg.QueryResult> {
  if (!tracingOn()) return client.query(statement);
  const text = typeof statement === 'string' ? statement : statement.text;
  const span = startSpan(text.slice(0, text.search(/\s|$/)), { 'db.system': 'postgresql', 'db.statement': text });
  return endWith(span, client.query(statement));
}

/**
 * Runs each data request as one transaction: BEGIN, the role and claims, the
 * request's statements, COMMIT, so row-level security applies and nothing is
 * half-written.
 *
 * The common case is pipelined over a few shared connections ("mux"): the whole
 * transaction is written at once, in one tick, so it stays contiguous on the wire and
 * costs one network wait; PostgreSQL turns the COMMIT of a failed transaction into a
 * ROLLBACK. Writes are pipelined the same way on a connection of their own from a
 * pool, so that one commit's WAL flush does not hold up the reads queued behind it. A
 * transaction that must look at its results before deciding to commit cannot share a
 * connection (the next transaction would land inside it) nor be pipelined, so it takes
 * a pooled connection and awaits each statement.
 */
export interface ExecutorOptions {
  /** Shared pipelined connections for reads (about one per core). */
  readonly shared: number;
  /** Pooled connections for writes, counted reads and commit decisions. */
  readonly pooled: number;
  /** Prepared statements one connection may hold (default MAX_PREPARED_PER_CONNECTION). */
  readonly maxPrepared?: number;
  /**
   * Transactions one shared connection may have in flight; the rest wait in one queue for
   * whichever connection frees first. A backend runs its queue in order, so while it is off
   * the CPU every transaction queued on it waits; too low a bound leaves backends idle
   * between small batches. Unbounded unless given (the host's choice: runtime/host/pools.ts).
   */
  readonly maxInFlight?: number;
  /**
   * A connection unused for between one and two of these periods is closed, so a host
   * serving many projects holds connections only for the ones in use. Default 30 s.
   */
  readonly idleMs?: number;
  /**
   * False: statements go unnamed (parsed at each run, as PostgREST's
   * `db-prepared-statements=false`), for a transaction-mode pooler such as PgBouncer < 1.21,
   * which runs each transaction on whichever server connection is free, where a statement
   * another transaction prepared does not exist. Default true.
   */
  readonly preparedStatements?: boolean;
  /** The connection class (e.g. one that counts against the host's connection budget); default pg.Client. */
  readonly Client?: typeof pg.Client;
  /**
   * How many transactions may wait for a shared slot or a pooled connection, and how long,
   * before failing with ConnectionBudgetError. Unbounded unless given (the host's choice).
   */
  readonly wait?: WaitLimits;
  /**
   * Asked as a connection falls idle: true closes it at once (the host's connection budget is
   * contended and this project holds more than its turn); it reopens when needed.
   */
  readonly yieldWhen?: () => boolean;
  /** Given: the pooled connections grow past `pooled` while transactions queue for them (see BoundedPool). */
  readonly growth?: PoolGrowth;
}

const DEFAULT_IDLE_MS = 30_000;

export class RlsExecutor {
  private readonly mux: (pg.Client | null)[];
  private readonly pending: number[];
  private readonly connecting: (Promise<pg.Client> | null)[];
  /**
   * Admits at most `shared × maxInFlight` pipelined transactions, so an admitted one always finds
   * a shared connection with room; the rest wait in one bounded queue for whichever frees first.
   */
  private readonly slots: ConnectionBudget;
  private readonly exclusive: BoundedPool;
  /** Names of the statements each connection has prepared. */
  private readonly prepared = new WeakMap<object, Set<string>>();
  /** Whether each shared connection carried a transaction since the last idle sweep. */
  private readonly used: boolean[];
  private readonly idleSweep: NodeJS.Timeout;
  private readonly maxPrepared: number;
  private readonly named: boolean;
  private readonly Client: typeof pg.Client;
  private readonly yieldWhen: () => boolean;
  private closed = false;

  constructor(private readonly connectionString: string, options: ExecutorOptions) {
    const {
      shared, pooled, maxPrepared = MAX_PREPARED_PER_CONNECTION, maxInFlight = Infinity, idleMs = DEFAULT_IDLE_MS,
      preparedStatements = true, Client = pg.Client, wait = UNBOUNDED_WAIT, yieldWhen = () => false, growth,
    } = options;
    if (!(maxInFlight >= 1)) throw new RangeError('maxInFlight must be at least 1');
    this.named = preparedStatements;
    this.maxPrepared = maxPrepared;
    this.Client = Client;
    this.yieldWhen = yieldWhen;
    this.slots = checkoutGate(shared * maxInFlight, wait);
    this.mux = Array.from({ length: shared }, () => null);
    this.pending = Array.from({ length: shared }, () => 0);
    this.used = Array.from({ length: shared }, () => false);
    this.connecting = Array.from({ length: shared }, () => null);
    this.exclusive = surviveDroppedConnections(
      new BoundedPool({ connectionString, max: pooled, idleTimeoutMillis: idleMs, pipeline: true, Client } as pg.PoolConfig, { wait, yieldWhen, growth }),
    );
    this.idleSweep = setInterval(() => this.closeIdle(), idleMs);
    this.idleSweep.unref();
  }

  /** No transaction running or waiting: closing now would cut nothing short. */
  get idle(): boolean {
    const slots = this.slots.stats();
    return slots.inUse === 0 && slots.waiting === 0 && this.connecting.every((c) => c === null)
      && this.exclusive.idleCount === this.exclusive.totalCount && this.exclusive.queued === 0;
  }

  async run(identity: RequestIdentity, statements: readonly TxStatement[], options: TxOptions): Promise<pg.QueryResult[]> {
    if (this.closed) throw new ConnectionsClosedError();
    const setup = identityStatement(identity);
    return tracingOn() ? inSpan('transaction', () => this.runAs(setup, statements, options), { 'db.system': 'postgresql' }) : this.runAs(setup, statements, options);
  }

  private runAs(setup: TxStatement, statements: readonly TxStatement[], options: TxOptions): Promise<pg.QueryResult[]> {
    if (options.commitIf) return this.runExclusive(setup, statements, options);
    // A write's COMMIT waits for its WAL flush; on a shared connection every transaction
    // queued behind it would wait too, so writes take a connection of their own and
    // concurrent commits share flushes (group commit).
    return options.readOnly && !options.slow ? this.runPipelined(setup, statements, options) : this.runPooled(setup, statements, options);
  }

  /** Queues the whole transaction at once on `client`; the first failure is the transaction's. */
  private async pipeline(client: pg.Client | pg.PoolClient, setup: TxStatement, statements: readonly TxStatement[], options: TxOptions): Promise<pg.QueryResult[]> {
    // pg writes each query on its own; corked until the event loop's poll phase is over,
    // this transaction and those of every other request read in the same phase leave in
    // one write (measured: a third of the server's CPU went to these writes before).
    const socket = (client as unknown as { connection?: { stream?: Corkable } }).connection?.stream;
    socket?.cork?.();
    let queued: Promise<pg.QueryResult>[];
    try {
      queued = [
        send(client, options.readOnly ? BEGIN_READ_ONLY : BEGIN_READ_WRITE),
        send(client, queryConfig(setup, this.named)),
        ...statements.map((statement) => send(client, queryConfig(statement, this.named))),
        send(client, 'COMMIT'),
      ];
    } finally {
      if (socket?.uncork) setImmediate(() => socket.uncork?.());
    }
    const settled = await Promise.allSettled(queued);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.slice(2, 2 + statements.length).map((s) => (s as PromiseFulfilledResult<pg.QueryResult>).value);
  }

  /**
   * Records the statements `client` is about to prepare; false (recording nothing) when
   * they would take it past its budget.
   */
  private admit(client: object, setup: TxStatement, statements: readonly TxStatement[]): boolean {
    if (!this.named) return true;
    const names = this.prepared.get(client) ?? new Set<string>();
    // The usual case, a repeated request: everything is prepared already, nothing to allocate.
    if (names.has(setup.name) && statements.every((s) => names.has(s.name))) return true;
    const added = [setup, ...statements].filter((s) => !names.has(s.name)).map((s) => s.name);
    if (names.size + new Set(added).size > this.maxPrepared) return false;
    for (const name of added) names.add(name);
    this.prepared.set(client, names);
    return true;
  }

  /** A pooled connection with room for `statements`; a full one is closed and another taken. */
  private async pooledClient(setup: TxStatement, statements: readonly TxStatement[]): Promise<pg.PoolClient> {
    const waiting = startSpan('connection wait');
    let client: pg.PoolClient;
    try {
      client = await this.exclusive.connect();
    } finally {
      waiting?.end();
    }
    if (this.admit(client, setup, statements)) return client;
    client.release(true);
    const fresh = await this.exclusive.connect();
    this.admit(fresh, setup, statements);
    return fresh;
  }

  private async runPooled(setup: TxStatement, statements: readonly TxStatement[], options: TxOptions): Promise<pg.QueryResult[]> {
    const client = await this.pooledClient(setup, statements);
    let broken = false;
    try {
      return await this.pipeline(client, setup, statements, options);
    } catch (error) {
      // A failure without a SQLSTATE is the connection's: do not reuse it.
      if (!(error as { code?: string }).code) broken = true;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async runPipelined(setup: TxStatement, statements: readonly TxStatement[], options: TxOptions): Promise<pg.QueryResult[]> {
    // The wait for a slot and, when the shared connection is not open yet, for its connection.
    const waiting = startSpan('connection wait');
    let permit: Permit;
    try {
      // A free slot is taken without a promise; tryAcquire never passes one that waits.
      permit = this.slots.tryAcquire('slot') ?? await this.slots.acquire('slot');
    } catch (error) {
      waiting?.end();
      throw error;
    }
    const slot = this.leastLoaded();
    this.pending[slot]!++;
    this.used[slot] = true;
    try {
      if (this.closed) throw new ConnectionsClosedError();
      let client: pg.Client;
      try {
        client = await this.muxClient(slot);
        if (!this.admit(client, setup, statements)) {
          // A full connection ends once its queue drains; this and later transactions get a fresh one.
          if (this.mux[slot] === client) this.mux[slot] = null;
          void client.end().catch(() => undefined);
          client = await this.muxClient(slot);
          this.admit(client, setup, statements);
        }
      } finally {
        waiting?.end();
      }
      return await this.pipeline(client, setup, statements, options);
    } finally {
      this.pending[slot]!--;
      permit.release();
      if (this.pending[slot] === 0 && this.yieldWhen()) this.closeShared(slot);
    }
  }


  /**
   * The shared connection with the fewest transactions in flight: with `slots` admitting at most
   * `maxInFlight` per connection, it has room, so a stalled backend holds up at most
   * `maxInFlight` transactions, not every one sent to it.
   */
  private leastLoaded(): number {
    let slot = 0;
    for (let i = 1; i < this.pending.length; i++) if (this.pending[i]! < this.pending[slot]!) slot = i;
    return slot;
  }

  private async runExclusive(setup: TxStatement, statements: readonly TxStatement[], options: TxOptions): Promise<pg.QueryResult[]> {
    const client = await this.pooledClient(setup, statements);
    let broken = false;
    try {
      await send(client, options.readOnly ? BEGIN_READ_ONLY : BEGIN_READ_WRITE);
      try {
        await send(client, queryConfig(setup, this.named));
        const results: pg.QueryResult[] = [];
        for (const statement of statements) results.push(await send(client, queryConfig(statement, this.named)));
        await send(client, options.commitIf!(results) ? 'COMMIT' : 'ROLLBACK');
        return results;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      }
    } catch (error) {
      // A failure without a SQLSTATE is the connection's: do not reuse it.
      if (!(error as { code?: string }).code) broken = true;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * A transaction whose statements are chosen while it runs (project extension hooks): BEGIN and the
   * identity, then `work` awaits each statement it sends through `query`, and its verdict commits or
   * rolls back. It holds a pooled connection throughout, as runExclusive does; the statements are not
   * prepared, since their text is the project's code and would grow the connection's prepared set at will.
   */
  async interactive<T>(
    identity: RequestIdentity,
    options: { readonly readOnly: boolean },
    work: (query: (text: string, values: readonly unknown[]) => Promise<pg.QueryResult>) => Promise<{ readonly commit: boolean; readonly value: T }>,
  ): Promise<{ readonly committed: boolean; readonly value: T }> {
    if (this.closed) throw new ConnectionsClosedError();
    const setup = identityStatement(identity);
    const client = await this.exclusive.connect();
    let broken = false;
    try {
      // BEGIN and the identity go out with the first statement (pooled connections pipeline): one round trip, not three.
      const opened = Promise.all([
        send(client, options.readOnly ? BEGIN_READ_ONLY : BEGIN_READ_WRITE),
        send(client, { text: setup.text, values: setup.values as unknown[] }),
      ]);
      opened.catch(() => undefined);
      try {
        const { commit, value } = await work(async (text, values) => {
          const result = send(client, { text, values: values as unknown[] });
          result.catch(() => undefined);
          await opened;
          return result;
        });
        await opened;
        await send(client, commit ? 'COMMIT' : 'ROLLBACK');
        return { committed: commit, value };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      }
    } finally {
      // A hook's own error leaves a healthy connection (its ROLLBACK went through); a lost one fails the ROLLBACK.
      client.release(broken);
    }
  }

  private muxClient(slot: number): Promise<pg.Client> {
    const ready = this.mux[slot];
    if (ready) return Promise.resolve(ready);
    const connecting = this.connecting[slot];
    if (connecting) return connecting;
    const attempt = (async () => {
      const client = new this.Client({ connectionString: this.connectionString, pipeline: true } as pg.ClientConfig);
      const drop = () => {
        if (this.mux[slot] === client) this.mux[slot] = null;
      };
      client.on('error', drop);
      client.on('end', drop);
      await client.connect();
      if (this.closed) {
        await client.end();
        throw new ConnectionsClosedError();
      }
      this.mux[slot] = client;
      return client;
    })();
    this.connecting[slot] = attempt;
    void attempt.then(
      () => (this.connecting[slot] = null),
      () => (this.connecting[slot] = null),
    );
    return attempt;
  }

  /** Closes every connection that carries nothing right now (see BoundedPool.shedIdle). */
  shedIdle(): void {
    this.mux.forEach((_, slot) => {
      if (this.pending[slot] === 0) this.closeShared(slot);
    });
    this.exclusive.shedIdle();
  }

  /** Closes the shared connections that carried nothing since the last sweep. */
  private closeIdle(): void {
    this.mux.forEach((client, slot) => {
      if (client !== null && this.pending[slot] === 0 && !this.used[slot]) this.closeShared(slot);
      this.used[slot] = false;
    });
  }

  private closeShared(slot: number): void {
    const client = this.mux[slot];
    if (!client) return;
    this.mux[slot] = null;
    void client.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.idleSweep);
    const clients = this.mux.filter((c): c is pg.Client => c !== null);
    this.mux.fill(null);
    await Promise.all([...clients.map((c) => c.end().catch(() => undefined)), this.exclusive.end()]);
  }
}
