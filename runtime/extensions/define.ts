import type { Schema } from './schema.js';

/**
 * The extension API a project's own code (`extensions/<ref>/index.ts`) is written against,
 * typed by the project's generated `database.types.ts`.
 */

/** Who made the request, from its verified JWT. */
export interface ExtensionUser {
  /** `sub`: the auth user's id; null for the anon and service_role keys. */
  readonly id: string | null;
  readonly role: string;
  readonly email: string | null;
}

/** What hooks and route handlers get: the request's own transaction, as the caller's role. */
export interface ExtensionContext {
  /**
   * A statement in the request's transaction, as the request's role under row-level security;
   * interpolated values are bind parameters. It rolls back with the request. Gantry's own typecheck gives each
   * template its row and parameter types (`R`, `P`) from PostgreSQL's Describe of its text (docs/extensions.md).
   */
  sql<R extends object = Record<string, unknown>, P extends unknown[] = unknown[]>(strings: TemplateStringsArray, ...values: P): Promise<R[]>;
  /** The request's verified JWT claims (`request.jwt.claims`). */
  readonly claims: Readonly<Record<string, unknown>>;
  readonly user: ExtensionUser;
  /**
   * A side effect for after COMMIT (an e-mail, a webhook): it runs only if the transaction
   * committed, before the response is sent; its failure is logged, the response stands.
   */
  afterCommit(effect: () => void | Promise<void>): void;
}

type Maybe<T> = T | void | Promise<T | void>;

/**
 * A table's hooks. `before*` run in the transaction before the data API's statement and may
 * replace what it writes; `afterWrite` sees every row written (whole rows, whatever the client
 * selected) before COMMIT; `afterRead` may reshape or drop the rows of the table the data API
 * returns, wherever they show: a read, a write's representation, rows embedded in another table's
 * (once per parent row), a function's `SETOF` result (the columns the client selected, hence
 * `Partial`; JSON only: CSV and spreads of such rows are refused). On a read it runs after the
 * read's transaction, its `ctx.sql` in a read-only transaction of its own (same role and claims);
 * on a write's representation, inside the write's. Reads stay read-only: side effects of a read
 * go through `afterCommit`. A thrown ExtensionError answers the request.
 */
export interface TableHooks<Row, Insert, Update> {
  beforeInsert?(rows: Insert[], ctx: ExtensionContext): Maybe<Insert[]>;
  beforeUpdate?(patch: Update, ctx: ExtensionContext): Maybe<Update>;
  beforeDelete?(ctx: ExtensionContext): void | Promise<void>;
  afterWrite?(rows: Row[], ctx: ExtensionContext & { readonly action: 'insert' | 'update' | 'delete' }): void | Promise<void>;
  afterRead?(rows: Partial<Row>[], ctx: ExtensionContext): Maybe<Partial<Row>[]>;
}

/** The methods a custom route may answer (supabase-js `functions.invoke`'s `method`). */
export type RouteMethod = 'POST' | 'GET' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A custom route at `/functions/v1/<name>` (what supabase-js `functions.invoke` calls), answering one
 * method: `POST` (the default), `PUT`, `PATCH` and `DELETE` take their input as a JSON body and run in
 * a read-write transaction; `GET` takes it from the query string (an object of scalars and arrays of
 * them) and runs in a read-only one.
 */
export interface FunctionRoute<I, O> {
  readonly method?: RouteMethod;
  readonly summary?: string;
  readonly input: Schema<I>;
  readonly output: Schema<O>;
  handler(input: I, ctx: ExtensionContext): O | Promise<O>;
}

type TablesOf<DB, S extends keyof DB> = DB[S] extends { Tables: infer T } ? T : never;
type HooksOf<T> = T extends { Row: infer R; Insert: infer I; Update: infer U } ? TableHooks<R, I, U> : never;

export interface ExtensionSpec<DB, S extends keyof DB> {
  readonly tables?: { readonly [K in keyof TablesOf<DB, S>]?: HooksOf<TablesOf<DB, S>[K]> };
  readonly routes?: Readonly<Record<string, RuntimeRoute>>;
}

/** A route as the runtime calls it (the handler's input is validated against `input` first). */
export interface RuntimeRoute {
  readonly method?: RouteMethod;
  readonly summary?: string;
  readonly input: Schema<unknown>;
  readonly output: Schema<unknown>;
  handler(input: unknown, ctx: ExtensionContext): unknown;
}

/** What `defineExtension` returns and the host loads. */
export interface Extension {
  readonly kind: 'gantry-extension';
  /** The schema of the `tables` keys. */
  readonly schema: string;
  readonly tables: Readonly<Record<string, TableHooks<Record<string, unknown>, Record<string, unknown>, Record<string, unknown>>>>;
  readonly routes: Readonly<Record<string, RuntimeRoute>>;
}

/** One route, its handler typed by its schemas. */
export function route<I, O>(definition: FunctionRoute<I, O>): FunctionRoute<I, O> {
  return definition;
}

/** `defineExtension<Database>()({ tables, routes })`, for the tables of `schema` (default "public"). */
export function defineExtension<DB, S extends keyof DB & string = 'public' & keyof DB>(schema: S = 'public' as S) {
  return (spec: ExtensionSpec<DB, S>): Extension => ({
    kind: 'gantry-extension',
    schema,
    tables: (spec.tables ?? {}) as Extension['tables'],
    routes: spec.routes ?? {},
  });
}

/** Whether a loaded module's default export is an extension. */
export function isExtension(value: unknown): value is Extension {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'gantry-extension';
}
